/**
 * The SDK's ServerEventBus over our bus, so a `subscriptions/listen` stream (2026-07-28) or a
 * `resources/subscribe` session (2025) open on any gateway hears about a meeting running on any
 * worker. Its events come from two subjects:
 *
 * - the meeting events (`evt.meeting.<id>.segment_finalized`, `.meeting_status` and `.chat_message`), each one a
 *   `resource_updated` of that meeting's transcript resource;
 * - `evt.mcp.change`, where `publish()` sends the events this server raises itself.
 *
 * Who may hear about a transcript is decided when subscribing (only its owner may subscribe); the
 * bus carries no content, only the URI that changed. It subscribes to the bus only while a listener
 * exists, so a gateway nobody listens to receives no meeting events.
 */
import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import type { Bus, Subscription } from '@notetaker/bus';
import { evtMcpChange, evtMeeting } from '@notetaker/contracts';
import type { Logger } from '@notetaker/observability';
import { transcriptUri } from './resources.js';

/** The meeting events that change what a transcript resource reads (its `chat` too: an agent answers in the chat). */
const TRANSCRIPT_CHANGES = ['segment_finalized', 'meeting_status', 'chat_message'] as const;

type Listener = (event: ServerEvent) => void;

/** Relays MCP change events (a transcript changed, a list changed) between gateways, over our bus. */
export class McpChangeRelay implements ServerEventBus {
  private readonly listeners = new Set<Listener>();
  private subscriptions: Subscription[] = [];

  constructor(
    private readonly bus: Bus,
    private readonly logger: Logger,
  ) {}

  publish(event: ServerEvent): void {
    this.bus.publish(evtMcpChange(), event);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    if (this.subscriptions.length === 0) this.open();
    let live = true;
    return () => {
      if (!live) return;
      live = false;
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.shut();
    };
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  private open(): void {
    this.subscriptions = [
      this.bus.subscribe(evtMcpChange(), (data) => this.deliver(data as ServerEvent)),
      ...TRANSCRIPT_CHANGES.map((type) =>
        this.bus.subscribe(evtMeeting('*', type), (data) => {
          const meetingId = (data as { meetingId?: unknown }).meetingId;
          if (typeof meetingId === 'string') this.deliver({ kind: 'resource_updated', uri: transcriptUri(meetingId) });
        }),
      ),
    ];
  }

  private shut(): void {
    const closing = this.subscriptions;
    this.subscriptions = [];
    for (const sub of closing)
      sub.unsubscribe().catch((err) => this.logger.warn({ err }, 'MCP event unsubscribe failed'));
  }

  private deliver(event: ServerEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.logger.warn({ err }, 'an MCP change listener failed');
      }
    }
  }
}
