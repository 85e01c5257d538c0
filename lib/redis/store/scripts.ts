// The Lua scripts behind redisStore's atomic operations. Each runs as one EVALSHA (the client
// loads it on NOSCRIPT). Conventions shared with redis-store.ts:
// - an entry's value is the codec's text, or, for a store with its own clock (`now`),
//   "<expiresAt ms, empty for never>|<text>"; ARGV `now` is "" for a store without a clock,
//   whose entries only Redis (PX) expires;
// - "" stands for "absent" where a value is expected (an encoded value is never empty).
// The scripts touch keys they find in tag sets, which KEYS does not declare: fine on one
// server or a primary with replicas, not on Redis Cluster.

/** Is `raw` (a GET result) a live entry at `now`? */
const LIVE = `
local function live(raw, now)
  if not raw then return false end
  if now == '' then return true end
  local e = string.match(raw, '^([%d%.]*)|')
  if e == nil or e == '' then return true end
  return tonumber(e) > tonumber(now)
end
`;

/**
 * Add `member` to the tag set `set`, which lives as long as its longest-lived entry; then drop
 * up to two random members that no longer exist, so a busy tag's set stays near its live size.
 */
const TAG = `
local function tag(set, member, ttl)
  local pttl = redis.call('PTTL', set) -- -2: a new set, -1: one that lives forever
  redis.call('SADD', set, member)
  if ttl == '' then
    if pttl >= 0 then redis.call('PERSIST', set) end
  elseif pttl == -2 or (pttl >= 0 and pttl < tonumber(ttl)) then
    redis.call('PEXPIRE', set, ttl)
  end
  for _, m in ipairs(redis.call('SRANDMEMBER', set, 2)) do
    if m ~= member and redis.call('EXISTS', m) == 0 then redis.call('SREM', set, m) end
  end
end
`;

/**
 * Write one entry. KEYS[1] the entry, KEYS[2..] its tag sets. ARGV: mode, value, ttl ms ("" none),
 * now, expected.
 * - "set": write; returns 1.
 * - "add": write unless a live entry is there; returns 1 when written, else 0.
 * - "cas": only when the entry is still exactly `expected` ("" = still absent); value "" deletes.
 *   Returns {1} when done, else {0, current value} so the caller can retry without a GET.
 */
export const WRITE_SCRIPT = `${LIVE}${TAG}
local key, mode, value, ttl, now = KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local current = redis.call('GET', key)
if mode == 'add' then
  if live(current, now) then return 0 end
elseif mode == 'cas' then
  if (current or '') ~= ARGV[5] then return {0, current} end
  if value == '' then
    if current then redis.call('DEL', key) end
    return {1}
  end
end
if ttl == '' then redis.call('SET', key, value) else redis.call('SET', key, value, 'PX', ttl) end
for i = 2, #KEYS do tag(KEYS[i], key, ttl) end
if mode == 'cas' then return {1} end
return 1
`;

/** Delete KEYS[1]; 1 when it was a live entry at ARGV[1] (now), else 0. For stores with a clock. */
export const DELETE_SCRIPT = `${LIVE}
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
redis.call('DEL', KEYS[1])
if live(current, ARGV[1]) then return 1 end
return 0
`;

/** Delete every entry in the tag set KEYS[1], then the set; returns how many were live at ARGV[1] (now). */
export const DELETE_TAGGED_SCRIPT = `${LIVE}
local n = 0
for _, m in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local current = redis.pcall('GET', m)
  if type(current) == 'string' then
    redis.call('UNLINK', m)
    if live(current, ARGV[1]) then n = n + 1 end
  end
end
redis.call('UNLINK', KEYS[1])
return n
`;

/**
 * Token bucket KEYS[1] (a hash: t = tokens, a = when, ms) on the Redis server's clock, so every
 * process shares one. ARGV: capacity, refill per second, ttl ms. Refills from the elapsed time
 * (never negative, should the clock step back), takes a token when there is one, keeps the
 * bucket for ttl. Returns {ok 0|1, tokens, at} with the numbers as strings (a Lua number in a
 * reply would be truncated to an integer).
 */
export const TAKE_TOKEN_SCRIPT = `
if redis.replicate_commands then redis.replicate_commands() end
local capacity, perMs, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]) / 1000, ARGV[3]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local saved = redis.call('HMGET', KEYS[1], 't', 'a')
local tokens = capacity
if saved[1] and saved[2] then
  local elapsed = now - tonumber(saved[2])
  if elapsed < 0 then elapsed = 0 end
  tokens = tonumber(saved[1]) + elapsed * perMs
  if tokens > capacity then tokens = capacity end
end
local ok = 0
if tokens >= 1 then
  tokens = tokens - 1
  ok = 1
end
local tokensText = string.format('%.17g', tokens)
redis.call('HSET', KEYS[1], 't', tokensText, 'a', tostring(now))
redis.call('PEXPIRE', KEYS[1], ttl)
return {ok, tokensText, tostring(now)}
`;
