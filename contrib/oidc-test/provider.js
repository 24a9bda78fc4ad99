// A throw-away OpenID Connect provider for t/0062-oidc-e2e.t, built on the
// `oidc-provider` package (install it with `npm ci` in this directory).
// NEVER use it for anything but that test: its users, passwords, client
// secrets and signing key are fixed or made up at start, it keeps
// everything in memory, and it speaks plain HTTP on 127.0.0.1.
//
//   OIDC_PORT=...  OIDC_REDIRECT_URI=http://127.0.0.1:P/oidc/redirect_uri \
//   OIDC_CLI_REDIRECT_URI=http://127.0.0.1:Q/callback  node provider.js
//
// Users (login / password):  alice / alice-pw,  bob / bob-pw,  carol /
// carol-pw, and mallory / mallory-pw, who gives carol's email as his own
// with email_verified false (as a provider that lets anyone type any
// address would).
// Clients (id / secret):
//   ledger-apache / apache-secret  Apache's mod_auth_openidc: the
//                                  authorization code flow, redirected to
//                                  OIDC_REDIRECT_URI;
//   ledger-rs / rs-secret          the same Apache as an OAuth 2.0 resource
//                                  server: only calls token introspection;
//   ledger-cli / cli-secret        an API client: the code flow to
//                                  OIDC_CLI_REDIRECT_URI for a user's token,
//                                  or client credentials for a token that
//                                  belongs to no user.
// Logging in is a plain HTML form (fields "login" and "password") at
// /interaction/<uid>; consent is implied for these first-party clients.
// "listening on <issuer>" on stdout says it is ready.
import crypto from 'node:crypto';
import { URLSearchParams } from 'node:url';
import Provider from 'oidc-provider';

const port = Number(process.env.OIDC_PORT || 0);
const issuer = `http://127.0.0.1:${port}`;
const redirectUri = process.env.OIDC_REDIRECT_URI;
const cliRedirectUri = process.env.OIDC_CLI_REDIRECT_URI;
if (!port || !redirectUri || !cliRedirectUri) {
  console.error('set OIDC_PORT, OIDC_REDIRECT_URI and OIDC_CLI_REDIRECT_URI');
  process.exit(2);
}

const USERS = {
  alice: { password: 'alice-pw', email: 'alice@example.org', name: 'Alice Example', verified: true },
  bob: { password: 'bob-pw', email: 'bob@example.org', name: 'Bob Example', verified: true },
  carol: { password: 'carol-pw', email: 'carol@example.org', name: 'Carol Example', verified: true },
  mallory: { password: 'mallory-pw', email: 'carol@example.org', name: 'Mallory', verified: false },
};
const SCOPE = 'openid email profile';

const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const signingKey = { ...privateKey.export({ format: 'jwk' }), use: 'sig', alg: 'RS256', kid: 'test' };

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: 'ledger-apache',
      client_secret: 'apache-secret',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    },
    {
      client_id: 'ledger-rs',
      client_secret: 'rs-secret',
      redirect_uris: [],
      grant_types: [],
      response_types: [],
    },
    {
      client_id: 'ledger-cli',
      client_secret: 'cli-secret',
      redirect_uris: [cliRedirectUri],
      grant_types: ['authorization_code', 'client_credentials'],
      response_types: ['code'],
    },
  ],
  jwks: { keys: [signingKey] },
  cookies: { keys: [crypto.randomBytes(32).toString('hex')] },
  claims: { email: ['email', 'email_verified'], profile: ['name'] },
  scopes: ['openid', 'email', 'profile'],
  features: {
    devInteractions: { enabled: false },
    introspection: {
      enabled: true,
      // Only the resource server may ask about tokens.
      allowedPolicy: async (ctx, client) => client.clientId === 'ledger-rs',
    },
    clientCredentials: { enabled: true },
  },
  pkce: { required: () => false },
  interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
  async findAccount(ctx, id) {
    const user = USERS[id];
    if (!user) return undefined;
    return {
      accountId: id,
      async claims() {
        return { sub: id, email: user.email, email_verified: user.verified, name: user.name };
      },
    };
  },
  // First-party clients: everything they ask of SCOPE is granted without a
  // consent page.
  async loadExistingGrant(ctx) {
    const id = ctx.oidc.result?.consent?.grantId
      || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
    if (id) return ctx.oidc.provider.Grant.find(id);
    const grant = new ctx.oidc.provider.Grant({
      clientId: ctx.oidc.client.clientId,
      accountId: ctx.oidc.session.accountId,
    });
    grant.addOIDCScope(SCOPE);
    await grant.save();
    return grant;
  },
  ttl: { AccessToken: 600, IdToken: 600, Session: 3600, Interaction: 600, Grant: 3600 },
});

function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function loginPage(uid, message) {
  return `<!DOCTYPE html>
<html><head><title>Sign in</title></head><body>
<h1>Sign in</h1>${message ? `<p class="error">${esc(message)}</p>` : ''}
<form method="post" action="/interaction/${esc(uid)}/login">
<label>Login <input name="login" autocomplete="username"></label>
<label>Password <input name="password" type="password" autocomplete="current-password"></label>
<button type="submit">Sign in</button>
</form></body></html>
`;
}

async function readForm(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > 65536) throw new Error('form too large');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

provider.use(async (ctx, next) => {
  const m = /^\/interaction\/([\w-]+)(\/login)?$/.exec(ctx.path);
  if (!m) return next();
  const details = await provider.interactionDetails(ctx.req, ctx.res);
  if (details.uid !== m[1]) ctx.throw(400, 'interaction mismatch');
  ctx.set('Cache-Control', 'no-store');
  if (!m[2] && ctx.method === 'GET') {
    ctx.type = 'html';
    ctx.body = loginPage(details.uid);
    return undefined;
  }
  if (m[2] && ctx.method === 'POST') {
    const form = await readForm(ctx.req);
    const login = form.get('login') || '';
    const user = Object.prototype.hasOwnProperty.call(USERS, login) ? USERS[login] : null;
    if (!user || form.get('password') !== user.password) {
      ctx.status = 401;
      ctx.type = 'html';
      ctx.body = loginPage(details.uid, 'wrong login or password');
      return undefined;
    }
    const to = await provider.interactionResult(ctx.req, ctx.res,
      { login: { accountId: login } }, { mergeWithLastSubmission: false });
    ctx.status = 303;
    ctx.redirect(to);
    return undefined;
  }
  return ctx.throw(405);
});

const server = provider.listen(port, '127.0.0.1', () => {
  console.log(`listening on ${issuer}`);
});
for (const sig of ['SIGTERM', 'SIGINT']) {
  process.on(sig, () => server.close(() => process.exit(0)));
}
