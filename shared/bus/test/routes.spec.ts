import { expect } from 'chai';
import { broadcasts, routes, ServiceError } from '@notetaker/contracts';
import { eventually } from '../../../test/support/wait.js';
import { announce, answer, call, listen, MemoryBroker, MemoryBus, type Subscription } from '../src/index.js';
import { rejectionOf } from '../../../test/support/rejection.js';

describe('bus routes: requests and replies checked against the routes table', () => {
  const reported: unknown[] = [];
  let server: MemoryBus;
  let client: MemoryBus;
  let subs: Subscription[];

  beforeEach(() => {
    const broker = new MemoryBroker();
    server = new MemoryBus({ broker, onHandlerError: (err) => reported.push(err) });
    client = new MemoryBus({ broker });
    subs = [];
    reported.length = 0;
  });
  afterEach(async () => {
    await Promise.all(subs.map((s) => s.unsubscribe()));
    await Promise.all([server.close(), client.close()]);
  });

  it('hands the server its request parsed, defaults filled, and the caller the reply', async () => {
    const seen: unknown[] = [];
    subs.push(
      answer(server, routes.tasks.list, (req) => {
        seen.push(req);
        return { tasks: [], next: null };
      }),
    );
    expect(await call(client, routes.tasks.list, { scheduled: true })).to.deep.equal({ tasks: [], next: null });
    expect(seen).to.deep.equal([{ scheduled: true, limit: 500 }]);
  });

  it('answers 400 naming the field to a request outside the contract, without calling the handler', async () => {
    let called = false;
    subs.push(answer(server, routes.projects.meetings, () => ((called = true), { project: 'p', meetings: [] })));
    const err = await rejectionOf(client.request(routes.projects.meetings.subject, { projectId: 7 }));
    expect(err).to.be.instanceOf(ServiceError).and.include({ status: 400, field: 'projectId' });
    expect(called).to.equal(false);
  });

  it('refuses a reply outside the contract with 502 bad_reply naming the subject', async () => {
    // A peer of another version answering without a field the caller relies on.
    subs.push(server.serve(routes.transcripts.open.subject, () => ({ path: 'meetings/x.md' })));
    const err = await rejectionOf(
      call(client, routes.transcripts.open, {
        meetingId: 'm',
        project: 'p',
        title: null,
        platform: 'teams',
        startedAt: new Date().toISOString(),
        saveTranscript: true,
      }),
    );
    expect(err).to.be.instanceOf(ServiceError).and.include({ status: 502, code: 'bad_reply' });
    expect((err as Error).message)
      .to.contain('svc.transcripts.open')
      .and.contain('documentPath');
  });

  it('delivers broadcasts that match their schema and reports the ones that do not', async () => {
    const heard: unknown[] = [];
    subs.push(listen(server, broadcasts.taskChanged, (notice) => void heard.push(notice)));
    client.publish(broadcasts.taskChanged.subject, { name: 42 });
    announce(client, broadcasts.taskChanged, { name: 'digest', origin: 'b' });
    await eventually(() => heard.length === 1 && reported.length === 1);
    expect(heard).to.deep.equal([{ name: 'digest', origin: 'b' }]);
    expect(broadcasts.taskChanged.subject).to.equal('broadcast.tasks.changed');
  });
});
