// The authorization-code exchange at the token endpoint (RFC 6749 §4.1.3, RFC 7636 §4.5) with
// global fetch: bounded time and response size, no redirects followed (the request carries
// the code, the verifier and possibly the client secret), JSON answer checked.
import { ApiError } from "../../index.js";
import { readLimitedText } from "../../shared/read-limited.js";

export interface OAuth2TokenResponse {
  readonly access_token: string;
  readonly token_type: string;
  readonly expires_in?: number;
  readonly refresh_token?: string;
  readonly id_token?: string;
  readonly scope?: string;
  readonly [member: string]: unknown;
}

export type TokenEndpointAuth = "client_secret_basic" | "client_secret_post" | "none";

export interface CodeExchange {
  readonly tokenEndpoint: URL;
  readonly clientId: string;
  readonly clientSecret: string | undefined;
  readonly auth: TokenEndpointAuth;
  readonly code: string;
  readonly codeVerifier: string;
  readonly redirectUri: string;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly fetch: typeof fetch;
}

/** application/x-www-form-urlencoded encoding of one value (RFC 6749 §2.3.1 asks for it in Basic auth too). */
function formEncode(value: string): string {
  return new URLSearchParams([["", value]]).toString().slice(1);
}

function upstream(message: string, detail: string, cause?: unknown): ApiError {
  return new ApiError(502, "bad_gateway", message, cause === undefined ? { detail } : { detail, cause });
}

function readLimited(res: Response, maxBytes: number): Promise<string> {
  return readLimitedText(res, maxBytes, (detail) => {
    throw upstream("Token endpoint answer too large", detail);
  });
}

/** The IdP's error code (RFC 6749 §5.2) if it is a plain token, for messages and logs. */
function oauthErrorCode(body: unknown): string {
  const e = typeof body === "object" && body !== null ? (body as Record<string, unknown>)["error"] : undefined;
  return typeof e === "string" && /^[A-Za-z0-9_.-]{1,64}$/.test(e) ? e : "unknown_error";
}

export async function exchangeCode(x: CodeExchange): Promise<OAuth2TokenResponse> {
  const form = new URLSearchParams();
  form.set("grant_type", "authorization_code");
  form.set("code", x.code);
  form.set("redirect_uri", x.redirectUri);
  form.set("code_verifier", x.codeVerifier);
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    accept: "application/json",
  };
  if (x.auth === "client_secret_basic") {
    const pair = `${formEncode(x.clientId)}:${formEncode(x.clientSecret ?? "")}`;
    headers["authorization"] = "Basic " + Buffer.from(pair, "utf8").toString("base64");
  } else {
    form.set("client_id", x.clientId);
    if (x.auth === "client_secret_post") form.set("client_secret", x.clientSecret ?? "");
  }
  let res: Response;
  let text: string;
  try {
    res = await x.fetch(x.tokenEndpoint, {
      method: "POST",
      headers,
      body: form.toString(),
      redirect: "error",
      signal: AbortSignal.timeout(x.timeoutMs),
    });
    text = await readLimited(res, x.maxBytes);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw upstream("Token endpoint unreachable", err instanceof Error ? err.message : String(err), err);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw upstream("Token endpoint answered with invalid JSON", `status ${res.status}`);
  }
  if (res.status >= 400 && res.status < 500) {
    // invalid_grant (code used twice or expired, verifier mismatch), invalid_client, ...
    const code = oauthErrorCode(body);
    throw ApiError.unauthorized(`Authorization code exchange failed: ${code}`, { detail: `token endpoint status ${res.status}` });
  }
  if (res.status !== 200) throw upstream("Token endpoint failed", `status ${res.status}`);
  const t = body as Record<string, unknown>;
  if (typeof body !== "object" || body === null || Array.isArray(body) || typeof t["access_token"] !== "string" || t["access_token"] === "" || typeof t["token_type"] !== "string") {
    throw upstream("Token endpoint answer lacks access_token or token_type", "invalid token response");
  }
  if (t["id_token"] !== undefined && typeof t["id_token"] !== "string") throw upstream("Token endpoint answer has an invalid id_token", "id_token not a string");
  return body as OAuth2TokenResponse;
}
