// Huge, tiny and malformed numbers in JSON bodies, path ids and query parameters: a uniform 4xx
// (or the route's 404 for an id that parses but names nobody), never a rounded value that
// reaches a different record, never a 5xx.
import { http, type HostileCase, type HostileClass } from "../harness.js";

const json = (target: string, body: string): Buffer => http("POST", target, [["Content-Type", "application/json"]], body);

const numbers = ["1e400", "-1e400", "123456789012345678901234567890", "1e-400", "-0", "NaN", "Infinity", "-Infinity", "0x10", "01", "1.", ".5", "+1", "1e99999999999", "0.0000000000000000000000000001", "9007199254740993"];
const ids = ["18446744073709551615", "18446744073709551616", "99999999999999999999999999", "9007199254740993", "1e3", "1.0", "00000000000000000000001", "0", "-0", "NaN", "Infinity"];
const limits = ["99999999999999999999", "1e2", "1e400", "0x10", "-1", "0", "1.5", "NaN", "Infinity", "", "%20", "1%00", "101", "+50", "1_0"];

export const numbersClass: HostileClass = {
  name: "numbers",
  cases: [
    ...numbers.map((n): HostileCase => ({ name: `number ${n} in a JSON string field`, raw: json("/users", `{"email":${n},"password":"correct horse"}`), expect: [400, 422] })),
    ...numbers.slice(0, 8).map((n): HostileCase => ({ name: `number ${n} in a JSON report field`, raw: json("/api/v1/reports", `{"kind":"usage","month":"2024-05","fail":${n}}`), expect: [400, 422] })),
    ...[...new Set([...numbers, ...ids])].map((n): HostileCase => ({ name: `id ${n} in a path`, raw: http("GET", `/users/${encodeURIComponent(n)}`), expect: [400, 404, 422] })),
    ...limits.map((n): HostileCase => ({ name: `limit=${n}`, raw: http("GET", `/api/v1/users?limit=${n}`), expect: [400, 422] })),
    { name: "a cursor that decodes to a huge id", raw: http("GET", `/api/v1/users?cursor=${Buffer.from("99999999999999999999999").toString("base64url")}`), expect: [200, 400, 422] },
    { name: "a cursor that decodes to a negative id", raw: http("GET", `/api/v1/users?cursor=${Buffer.from("-1").toString("base64url")}`), expect: [400, 422] },
    { name: "a job id of 10 000 digits", raw: http("GET", `/api/v1/jobs/${"9".repeat(10_000)}`), expect: [400, 404, 414, 422] },
  ],
};
