/** JSON POSTs to the gateway's REST API over keep-alive loopback connections, for the load benches. */
import http from 'node:http';

export interface RestAnswer {
  status: number;
  body: Record<string, unknown>;
}

export class RestClient {
  private readonly agent: http.Agent;

  constructor(
    private readonly port: number,
    private readonly apiKey: string,
    sockets: number,
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  }

  post(pathname: string, json: unknown): Promise<RestAnswer> {
    const text = JSON.stringify(json);
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: this.port,
          path: `/api/v1${pathname}`,
          method: 'POST',
          agent: this.agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(text),
            'x-api-key': this.apiKey,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            let body: Record<string, unknown> = {};
            try {
              body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
            } catch {
              // an empty or non-JSON answer: the status says enough
            }
            resolve({ status: res.statusCode ?? 0, body });
          });
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
