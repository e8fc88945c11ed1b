/**
 * The gateway service: the REST and MCP edge and the owner of identity (accounts and API tokens).
 * Other services ask it for a token's signing secret over the bus, by token id only.
 */
import { answer } from '@notetaker/bus';
import { queueGroup, routes } from '@notetaker/contracts';
import type { ReadinessCheck, ReadinessDetails, Logger } from '@notetaker/observability';
import {
  serveHttp,
  type RunningService,
  type ServiceContext,
  type ServiceDefinition,
} from '@notetaker/service-runtime';
import { createGatewayApp } from './app.js';
import { AccountService } from './identity/accounts.js';
import { adminSocketPath, serveAdminSocket } from './identity/admin-socket.js';
import { BotAccountService, meetingsInUse, registerBotAccountMetrics } from './identity/bot-account-store.js';
import { runIdentityCommand } from './identity/commands.js';
import { GrantWatch } from './identity/grants.js';
import { SecretBox } from './identity/secrets.js';
import { TokenService } from './identity/tokens.js';
import { loadPublicUrl } from './http/public-url.js';
import { loadMcpConfig } from './mcp/config.js';
import { mcpEndpoint } from './mcp/endpoint.js';
import { closeLiveStreams, createWeb } from './web/index.js';

export interface GatewayOptions {
  /** Readiness of the whole process (the stack answers for every service it runs). */
  ready?: ReadinessCheck;
  /** What /readyz shows beside the status (the stack: every service's `readiness()`). */
  readinessDetails?: ReadinessDetails;
}

export async function startIdentity(ctx: Pick<ServiceContext, 'store' | 'config'> & { logger?: Logger }) {
  const box = SecretBox.load({ secretsKey: ctx.config.secretsKey, dataDir: ctx.config.dataDir });
  const tokens = new TokenService(ctx.store, box);
  const accounts = new AccountService(ctx.store);
  const botAccounts = new BotAccountService(ctx.store, box, ctx.logger);
  await tokens.init();
  await accounts.init();
  await botAccounts.init();
  return { tokens, accounts, botAccounts, box };
}

export interface RunningGateway extends RunningService {
  port: number;
  /** Runs an identity command (the CLI's verbs) inside this gateway. */
  admin(command: unknown): Promise<unknown>;
}

export function gatewayService(options: GatewayOptions = {}): ServiceDefinition<RunningGateway> {
  return {
    name: 'gateway',
    servesHttp: true,
    async start(ctx: ServiceContext): Promise<RunningGateway> {
      const publicUrl = loadPublicUrl(ctx.config.env); // a bad value stops the start before anything opens
      const identity = await startIdentity(ctx);
      const secretSub = answer(
        ctx.bus,
        routes.identity.signingSecret,
        async ({ tokenId }) => ({ signingSecret: await identity.tokens.signingSecret(tokenId) }),
        { queue: queueGroup('identity') },
      );
      // Bot accounts for meeting-session: the list, one account's storage state (decrypted), what a bot saw.
      const bots = identity.botAccounts;
      const identityQueue = { queue: queueGroup('identity') };
      const botSubs = [
        answer(
          ctx.bus,
          routes.identity.botAccounts,
          async (r) => ({ accounts: await bots.forPlatform(r.platform) }),
          identityQueue,
        ),
        answer(
          ctx.bus,
          routes.identity.botAccountStorageState,
          async (r) => ({ session: await bots.storageState(r.accountId) }),
          identityQueue,
        ),
        answer(
          ctx.bus,
          routes.identity.botAccountReport,
          async ({ accountId, ...report }) => {
            await bots.report(accountId, report);
            return {};
          },
          identityQueue,
        ),
      ];
      registerBotAccountMetrics(ctx.metrics, bots);
      const admin = (command: unknown) =>
        runIdentityCommand(command, { ...identity, meetingsInUse: () => meetingsInUse(ctx.bus) });
      const adminSocket = ctx.config.mongodbUrl
        ? null
        : await serveAdminSocket(adminSocketPath(ctx.config.dataDir), admin);
      // Streams (MCP subscriptions and sessions, the live view) end with the key or session they were opened on.
      const grants = new GrantWatch(ctx.bus, ctx.logger, ctx.config.env);
      identity.tokens.onRevoked((tokenId) => grants.ended({ kind: 'token', tokenId }));
      const web = await createWeb({
        bus: ctx.bus,
        grants,
        store: ctx.store,
        logger: ctx.logger,
        accounts: identity.accounts,
        tokens: identity.tokens,
        botAccounts: identity.botAccounts,
        box: identity.box,
        env: ctx.config.env,
        skillsDir: ctx.config.skillsDir,
      });
      const mcp = mcpEndpoint({
        bus: ctx.bus,
        tokens: identity.tokens,
        grants,
        logger: ctx.logger,
        config: loadMcpConfig(ctx.config.env),
        metrics: ctx.metrics,
      });
      grants.start({
        token: (tokenId) => identity.tokens.isActive(tokenId),
        web_session: (sessionId) => web.signIns.isActive(sessionId),
      });
      const app = createGatewayApp({
        bus: ctx.bus,
        tokens: identity.tokens,
        logger: ctx.logger,
        metrics: ctx.metrics,
        ready: options.ready ?? (() => true),
        readinessDetails: options.readinessDetails,
        web,
        mcp,
        publicUrl,
      });
      const http = await serveHttp(app, ctx.config.port, ctx.config.host);
      ctx.logger.info({ url: `http://${ctx.config.host}:${http.port}` }, 'gateway listening');
      return {
        port: http.port,
        admin,
        async stop() {
          await grants.stop();
          closeLiveStreams(web);
          await mcp.close();
          await http.close();
          await adminSocket?.close();
          await secretSub.unsubscribe();
          for (const sub of botSubs) await sub.unsubscribe();
        },
      };
    },
  };
}
