/** The parts of @20minutes/s3rver (a fake S3 server for tests, no types of its own) the tests use. */
declare module '@20minutes/s3rver' {
  import type { AddressInfo } from 'node:net';

  interface S3rverOptions {
    address?: string;
    port?: number;
    /** Where buckets and objects are kept, as files. */
    directory?: string;
    silent?: boolean;
    allowMismatchedSignatures?: boolean;
    configureBuckets?: Array<{ name: string }>;
  }

  export default class S3rver {
    constructor(options?: S3rverOptions);
    run(): Promise<AddressInfo>;
    /** Every object written (`ObjectCreated:Put`, ...) or removed, as S3 event notifications. */
    on(
      event: 'event',
      listener: (event: { Records: Array<{ eventName: string; s3: { object: { key: string } } }> }) => void,
    ): this;
    close(): Promise<void>;
  }
}
