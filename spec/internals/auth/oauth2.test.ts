// The OAuth2 PKCE client against a small identity provider that this test runs on loopback
// (a keel app): authorization URL, signed flow cookie, state check, code exchange with the
// S256 verifier and client_secret_basic, ID token verification through JWKS (issuer, audience,
// nonce), and every refusal: 400 / 401 / 403 / 502.
import assert from "node:assert/strict";
import { createHash, generateKeyPairSync, randomUUID } from "node:crypto";
import { after, before, beforeEach, describe, it } from "node:test";
import { App, context, form, header, optional, redirect, reply, route, silentLogger, type ListeningServer } from "../../../lib/index.js";
import { signJwt } from "../../../lib/jose/index.js";
import { oauth2Client, type OAuth2Client } from "../../../lib/auth/index.js";
import { openFlow, sealFlow } from "../../../lib/auth/oauth2/oauth2-flow-cookie.js";
import { pkceChallenge } from "../../../lib/auth/index.js";
import { send, type WireResponse } from "../../support/http.js";

const CLIENT_ID = "keel-rp";
const CLIENT_SECRET = "rp secret/with:odd+chars";
const COOKIE_SECRET = "cookie-secret-cookie-secret-cookie-secret";

interface Grant {
  challenge: string;
  nonce: string;
  redirectUri: string;
}

/** A minimal OpenID provider: /authorize, /token, /jwks. Knobs let tests make it misbehave. */
function createIdp() {
  const signing = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const stranger = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = { ...signing.publicKey.export({ format: "jwk" }), kid: "idp-1", alg: "RS256", use: "sig" };
  const grants = new Map<string, Grant>();
  const knobs = { nonce: undefined as string | undefined, signer: signing.privateKey, tokenStatus: 200, audience: CLIENT_ID, issParam: undefined as string | undefined };
  const seen: { tokenAuth?: string | undefined; tokenForm?: Record<string, unknown> } = {};
  let issuer = "";
  const app = new App({ logger: silentLogger }).routes(
    route.get("/authorize", [context()], (ctx) => {
      const q = ctx.query as Record<string, string>;
      if (q["response_type"] !== "code" || q["client_id"] !== CLIENT_ID || q["code_challenge_method"] !== "S256") return reply(400, "bad request");
      const code = randomUUID();
      grants.set(code, { challenge: q["code_challenge"]!, nonce: q["nonce"]!, redirectUri: q["redirect_uri"]! });
      const target = new URL(q["redirect_uri"]!);
      target.searchParams.set("code", code);
      target.searchParams.set("state", q["state"]!);
      target.searchParams.set("iss", knobs.issParam ?? issuer);
      return redirect(target.toString());
    }),
    route.post("/token", [optional(header("authorization")), form()], (authz, f) => {
      seen.tokenAuth = authz;
      seen.tokenForm = { ...f };
      if (knobs.tokenStatus !== 200) return reply(knobs.tokenStatus, { error: "server_error" });
      const expected = "Basic " + Buffer.from(`${encodeURIComponent(CLIENT_ID)}:${new URLSearchParams([["", CLIENT_SECRET]]).toString().slice(1)}`).toString("base64");
      if (authz !== expected) return reply(401, { error: "invalid_client" });
      const grant = grants.get(String(f["code"]));
      grants.delete(String(f["code"])); // one use only
      if (grant === undefined || f["grant_type"] !== "authorization_code" || f["redirect_uri"] !== grant.redirectUri) return reply(400, { error: "invalid_grant" });
      const verifier = String(f["code_verifier"]);
      if (createHash("sha256").update(verifier).digest("base64url") !== grant.challenge) return reply(400, { error: "invalid_grant" });
      const idToken = signJwt(
        { nonce: knobs.nonce ?? grant.nonce, email: "ada@example.com" },
        { algorithm: "RS256", key: knobs.signer, kid: "idp-1", issuer, audience: knobs.audience, subject: "user-42", expiresIn: 300 },
      );
      return { access_token: "at-" + randomUUID(), token_type: "Bearer", expires_in: 3600, id_token: idToken, scope: "openid profile" };
    }),
    route.get("/jwks", [], () => ({ keys: [jwk] })),
  );
  return {
    knobs,
    seen,
    signing,
    stranger,
    async start(): Promise<ListeningServer> {
      const server = await app.listen({ port: 0 });
      issuer = server.url;
      return server;
    },
  };
}

function cookiePair(r: WireResponse, name = "keel_oauth2"): string {
  const raw = (r.headers["set-cookie"] ?? []).find((c) => c.startsWith(name + "="));
  assert.ok(raw, "flow cookie expected");
  return raw.slice(0, raw.indexOf(";"));
}

describe("oauth2Client against a loopback identity provider", () => {
  const idp = createIdp();
  let idpServer: ListeningServer;
  let rp: ListeningServer;
  let client: OAuth2Client;
  let clock = Date.now();

  before(async () => {
    idpServer = await idp.start();
    const rpApp = new App({ logger: silentLogger });
    // The redirect URI needs the RP's port: listen first, then register routes and recompile.
    rp = await rpApp.listen({ port: 0 });
    client = oauth2Client({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      authorizationEndpoint: idpServer.url + "/authorize?prompt=login",
      tokenEndpoint: idpServer.url + "/token",
      redirectUri: rp.url + "/callback",
      scopes: ["profile"],
      cookieSecret: COOKIE_SECRET,
      idToken: { issuer: idpServer.url, algorithms: ["RS256"], jwksUrl: idpServer.url + "/jwks" },
      now: () => clock,
    });
    rpApp.routes(
      route.get("/login", [context()], (ctx) => client.startAuthorization(ctx, { returnTo: "/home?tab=1" })),
      route.get("/callback", [context()], async (ctx) => {
        const result = await client.finishAuthorization<{ email: string }>(ctx);
        const r = reply(200, { sub: result.idTokenClaims?.sub, email: result.idTokenClaims?.email, access: result.tokens.access_token.startsWith("at-"), returnTo: result.returnTo });
        r.appendHeader("set-cookie", result.clearCookie);
        return r;
      }),
    );
    rpApp.compile();
  });
  after(async () => {
    await rp.close();
    await idpServer.close();
  });
  beforeEach(() => {
    clock = Date.now();
    idp.knobs.nonce = undefined;
    idp.knobs.signer = idp.signing.privateKey;
    idp.knobs.tokenStatus = 200;
    idp.knobs.audience = CLIENT_ID;
    idp.knobs.issParam = undefined;
  });

  /** Login up to the IdP's redirect back: the callback URL and the flow cookie. */
  async function loginToCallback(): Promise<{ callback: string; cookie: string; authorizeUrl: URL }> {
    const login = await send(rp.url + "/login");
    assert.equal(login.status, 302);
    const cookie = cookiePair(login);
    const authorizeUrl = new URL(String(login.headers["location"]));
    const back = await send(authorizeUrl.toString());
    assert.equal(back.status, 302, back.body);
    return { callback: String(back.headers["location"]), cookie, authorizeUrl };
  }

  it("builds the authorization URL with state, S256 challenge, nonce and a signed HttpOnly cookie", async () => {
    const login = await send(rp.url + "/login");
    assert.equal(login.status, 302);
    assert.equal(login.headers["cache-control"], "no-store");
    const url = new URL(String(login.headers["location"]));
    const q = url.searchParams;
    assert.equal(url.origin + url.pathname, idpServer.url + "/authorize");
    assert.equal(q.get("prompt"), "login");
    assert.equal(q.get("response_type"), "code");
    assert.equal(q.get("client_id"), CLIENT_ID);
    assert.equal(q.get("redirect_uri"), rp.url + "/callback");
    assert.equal(q.get("scope"), "openid profile");
    assert.equal(q.get("code_challenge_method"), "S256");
    assert.match(q.get("state")!, /^[A-Za-z0-9_-]{43}$/);
    assert.match(q.get("nonce")!, /^[A-Za-z0-9_-]{43}$/);
    const raw = (login.headers["set-cookie"] ?? [])[0]!;
    assert.match(raw, /^keel_oauth2=[^;]+; Path=\/; Max-Age=600; HttpOnly; SameSite=Lax$/);
    const flow = openFlow(cookiePair(login).slice("keel_oauth2=".length), Buffer.from(COOKIE_SECRET), clock / 1000);
    assert.ok(flow);
    assert.equal(flow.s, q.get("state"));
    assert.equal(pkceChallenge(flow.v), q.get("code_challenge"));
    assert.equal(flow.n, q.get("nonce"));
    assert.equal(flow.r, "/home?tab=1");
  });

  it("completes the flow: state checked, code exchanged with the verifier, ID token verified", async () => {
    const { callback, cookie } = await loginToCallback();
    const r = await send(callback, { headers: { cookie } });
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(JSON.parse(r.body), { sub: "user-42", email: "ada@example.com", access: true, returnTo: "/home?tab=1" });
    assert.match(String(r.headers["set-cookie"]), /^keel_oauth2=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0$/);
    assert.equal(idp.seen.tokenForm?.["client_id"], undefined); // client_secret_basic: credentials in the header
    assert.equal(idp.seen.tokenForm?.["grant_type"], "authorization_code");
  });

  it("answers 400 without a flow cookie, with a forged or expired one", async () => {
    const { callback, cookie } = await loginToCallback();
    assert.equal((await send(callback)).status, 400);
    const forged = cookie.slice(0, -2) + (cookie.endsWith("AA") ? "BB" : "AA");
    assert.equal((await send(callback, { headers: { cookie: forged } })).status, 400);
    const state = new URL(callback).searchParams.get("state")!;
    const selfMade = "keel_oauth2=" + sealFlow({ s: state, v: "x".repeat(43), x: Date.now() / 1000 + 60 }, Buffer.from("another-secret-another-secret-another!!"));
    assert.equal((await send(callback, { headers: { cookie: selfMade } })).status, 400);
    clock = Date.now() + 601_000;
    assert.equal((await send(callback, { headers: { cookie } })).status, 400);
  });

  it("answers 403 when the state or the iss parameter does not match", async () => {
    const { callback, cookie } = await loginToCallback();
    const other = await loginToCallback();
    assert.equal((await send(callback, { headers: { cookie: other.cookie } })).status, 403);
    const noState = new URL(callback);
    noState.searchParams.delete("state");
    assert.equal((await send(noState.toString(), { headers: { cookie } })).status, 403);
    idp.knobs.issParam = "https://evil.example";
    const mixUp = await loginToCallback();
    const r = await send(mixUp.callback, { headers: { cookie: mixUp.cookie } });
    assert.equal(r.status, 403);
    assert.match(r.body, /issuer mismatch/);
  });

  it("answers 401 for an IdP error, a reused code, a wrong nonce, audience or signing key", async () => {
    const { callback, cookie } = await loginToCallback();
    const state = new URL(callback).searchParams.get("state")!;
    const denied = await send(`${rp.url}/callback?error=access_denied&state=${state}`, { headers: { cookie } });
    assert.equal(denied.status, 401);
    assert.match(denied.body, /access_denied/);
    assert.equal((await send(callback, { headers: { cookie } })).status, 200);
    const reused = await send(callback, { headers: { cookie } });
    assert.equal(reused.status, 401);
    assert.match(reused.body, /invalid_grant/);

    idp.knobs.nonce = "not-the-nonce";
    const a = await loginToCallback();
    assert.equal((await send(a.callback, { headers: { cookie: a.cookie } })).status, 401);
    idp.knobs.nonce = undefined;
    idp.knobs.audience = "someone-else";
    const b = await loginToCallback();
    assert.equal((await send(b.callback, { headers: { cookie: b.cookie } })).status, 401);
    idp.knobs.audience = CLIENT_ID;
    idp.knobs.signer = idp.stranger.privateKey;
    const c = await loginToCallback();
    assert.equal((await send(c.callback, { headers: { cookie: c.cookie } })).status, 401);
  });

  it("answers 400 without a code and 502 when the token endpoint fails", async () => {
    const { callback, cookie } = await loginToCallback();
    const noCode = new URL(callback);
    noCode.searchParams.delete("code");
    assert.equal((await send(noCode.toString(), { headers: { cookie } })).status, 400);
    idp.knobs.tokenStatus = 500;
    const r = await send(callback, { headers: { cookie } });
    assert.equal(r.status, 502);
    assert.equal((JSON.parse(r.body) as { error: { type: string } }).error.type, "bad_gateway");
  });

  it("refuses unsafe configurations and open redirects", async () => {
    const base = { clientId: "c", authorizationEndpoint: "https://idp.example/a", tokenEndpoint: "https://idp.example/t", redirectUri: "https://rp.example/cb", cookieSecret: COOKIE_SECRET };
    assert.throws(() => oauth2Client({ ...base, cookieSecret: "short" }), TypeError);
    assert.throws(() => oauth2Client({ ...base, tokenEndpoint: "http://idp.example/t" }), TypeError);
    assert.throws(() => oauth2Client({ ...base, tokenEndpointAuth: "client_secret_post" }), TypeError);
    assert.throws(() => oauth2Client({ ...base, scopes: ['a"b'] }), TypeError);
    const c = oauth2Client(base);
    const app = new App({ logger: silentLogger }).routes(route.get("/l", [context()], (ctx) => c.startAuthorization(ctx, { returnTo: String(ctx.query["to"]) })));
    for (const to of ["//evil.example", "/\\evil.example", "https://evil.example", "evil"]) {
      assert.equal((await app.inject({ url: "/l?to=" + encodeURIComponent(to) })).status, 400, to);
    }
    assert.equal((await app.inject({ url: "/l?to=%2Fok" })).status, 302);
  });
});
