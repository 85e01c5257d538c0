// The Lua scripts of RedisJobStore: every state change of a job is one script, so it is atomic
// across every process sharing the Redis. All of them get the same KEYS (job-keys.ts) and the same
// first ARGV (the job-hash prefix and the retention caps); what follows is the script's own.
//
// Data (P = the store's prefix):
//   P job:<id>     hash: type, payload (JSON text, never decoded here), state, attempts, max, runAt,
//                  createdAt, updatedAt, key?, errors (JSON array), errsize, base, tok?, due?, size?
//   P due          zset of pending jobs: score runAt, member <createdAt><seq><id> (fixed-width
//                  digits) so ties go oldest first, then first in
//   P leases       zset of running jobs: score = lease deadline, member id
//   P in:<state>   zset per state: score = order of entry into the state (list, counts, eviction)
//   P keys         hash: de-duplication key of a pending job -> its id
//   P meta         hash: seq, <state>:bytes and <state>:evicted for succeeded and dead
//   P wake         pub/sub channel: "a job became pending"
// The payload stays the text JSON.stringify made: Lua's cjson would turn [] into {} and round
// numbers to 14 digits. Only the error history (small integers and strings) goes through cjson.
import { MAX_ERROR_HISTORY } from "../../jobs/index.js";

/** Helpers shared by every script; KEYS and ARGV[1..5] as described above. */
const PRELUDE = `
local due, leases, keys, meta = KEYS[1], KEYS[2], KEYS[7], KEYS[8]
local inState = { pending = KEYS[3], running = KEYS[4], succeeded = KEYS[5], dead = KEYS[6] }
local jobPrefix, wake = ARGV[1], ARGV[2]
local caps = {
  succeeded = { count = tonumber(ARGV[3]), bytes = tonumber(ARGV[4]) },
  dead = { count = tonumber(ARGV[5]), bytes = tonumber(ARGV[6]) },
}
local A = 7 -- the script's own arguments start here

local function jobKey(id) return jobPrefix .. id end

local function num(v) return tonumber(v) or 0 end

local FIELDS = { 'type', 'payload', 'state', 'attempts', 'max', 'runAt', 'createdAt', 'updatedAt', 'key', 'errors' }

-- A job as the client decodes it: id followed by FIELDS (false for an absent key).
local function record(id)
  local values = redis.call('HMGET', jobKey(id), unpack(FIELDS))
  table.insert(values, 1, id)
  return values
end

local function retention()
  return {
    redis.call('ZCARD', inState.succeeded), num(redis.call('HGET', meta, 'succeeded:bytes')), num(redis.call('HGET', meta, 'succeeded:evicted')),
    redis.call('ZCARD', inState.dead), num(redis.call('HGET', meta, 'dead:bytes')), num(redis.call('HGET', meta, 'dead:evicted')),
  }
end

-- Enter a state: its place in in:<state>; pending jobs also go in line (due) and take their key
-- back if no other pending job holds it; finished ones count against their state's caps.
local function enter(id, state)
  local job = jobKey(id)
  local seq = redis.call('HINCRBY', meta, 'seq', 1)
  redis.call('ZADD', inState[state], seq, id)
  redis.call('HSET', job, 'state', state)
  if state == 'pending' then
    local f = redis.call('HMGET', job, 'runAt', 'createdAt', 'key')
    local member = string.format('%016d%016d', math.max(0, num(f[2])), seq) .. id
    redis.call('ZADD', due, num(f[1]), member)
    redis.call('HSET', job, 'due', member)
    if f[3] then redis.call('HSETNX', keys, f[3], id) end
  elseif state == 'succeeded' or state == 'dead' then
    local f = redis.call('HMGET', job, 'base', 'errsize')
    local size = num(f[1]) + num(f[2])
    redis.call('HSET', job, 'size', size)
    redis.call('HINCRBY', meta, state .. ':bytes', size)
  end
end

local function leave(id, state)
  local job = jobKey(id)
  redis.call('ZREM', inState[state], id)
  if state == 'pending' then
    local f = redis.call('HMGET', job, 'due', 'key')
    if f[1] then redis.call('ZREM', due, f[1]) end
    redis.call('HDEL', job, 'due')
    if f[2] and redis.call('HGET', keys, f[2]) == id then redis.call('HDEL', keys, f[2]) end
  elseif state == 'running' then
    redis.call('ZREM', leases, id)
    redis.call('HDEL', job, 'tok')
  elseif state == 'succeeded' or state == 'dead' then
    redis.call('HINCRBY', meta, state .. ':bytes', -num(redis.call('HGET', job, 'size')))
    redis.call('HDEL', job, 'size')
  end
end

-- Forget the oldest finished jobs (by entry into the state) until both caps hold.
local function trim(state)
  local set, cap = inState[state], caps[state]
  while true do
    local n = redis.call('ZCARD', set)
    if n == 0 then return end
    if n <= cap.count and num(redis.call('HGET', meta, state .. ':bytes')) <= cap.bytes then return end
    local oldest = redis.call('ZRANGE', set, 0, 0)[1]
    leave(oldest, state)
    redis.call('DEL', jobKey(oldest))
    redis.call('HINCRBY', meta, state .. ':evicted', 1)
  end
end

-- Append a failure to the job's history (the last ${MAX_ERROR_HISTORY} kept) and update its size.
local function pushError(id, attempt, at, message)
  local job = jobKey(id)
  local errors = cjson.decode(redis.call('HGET', job, 'errors') or '[]')
  errors[#errors + 1] = { attempt = attempt, at = at, message = message }
  while #errors > ${MAX_ERROR_HISTORY} do table.remove(errors, 1) end
  local size = 0
  for _, e in ipairs(errors) do size = size + #e.message + 32 end
  redis.call('HSET', job, 'errors', cjson.encode(errors), 'errsize', size)
end

-- The job's state when this caller holds its lease (running, same token), else nil.
local function leased(id, token)
  local f = redis.call('HMGET', jobKey(id), 'state', 'tok')
  if f[1] == 'running' and f[2] == token then return true end
  return nil
end

-- A failed attempt: back in line at retryAt, or dead (nil) with its history.
local function failRun(id, now, message, retryAt)
  local job = jobKey(id)
  pushError(id, num(redis.call('HGET', job, 'attempts')), now, message)
  leave(id, 'running')
  redis.call('HSET', job, 'updatedAt', now)
  if retryAt then
    redis.call('HSET', job, 'runAt', retryAt)
    enter(id, 'pending')
    redis.call('PUBLISH', wake, retryAt)
  else
    enter(id, 'dead')
    trim('dead')
  end
end
`;

function script(body: string): string {
  return PRELUDE + body;
}

/** ARGV: id type payload max runAt createdAt updatedAt attempts errors errsize base hasKey key → {id, created 0|1}. */
export const ADD = script(`
local id, hasKey, key = ARGV[A], ARGV[A + 11] == '1', ARGV[A + 12]
if hasKey then
  local existing = redis.call('HGET', keys, key)
  if existing then return { existing, 0 } end
end
local job = jobKey(id)
if redis.call('EXISTS', job) == 1 then return redis.error_reply('ERR job store: a job with this id exists') end
redis.call('HSET', job, 'type', ARGV[A + 1], 'payload', ARGV[A + 2], 'max', ARGV[A + 3], 'runAt', ARGV[A + 4],
  'createdAt', ARGV[A + 5], 'updatedAt', ARGV[A + 6], 'attempts', ARGV[A + 7], 'errors', ARGV[A + 8],
  'errsize', ARGV[A + 9], 'base', ARGV[A + 10])
if hasKey then redis.call('HSET', job, 'key', key) end
enter(id, 'pending')
redis.call('PUBLISH', wake, ARGV[A + 4])
return { id, 1 }
`);

/**
 * ARGV: now limit leaseDeadline token interruptedMessage maxRecover → {retention, record...}.
 * First the jobs whose lease lapsed (their worker died or stalled) fail their attempt as the
 * in-process stores' recovery does: back in line at once, or dead after the last attempt. Then
 * due jobs are taken, earliest first, up to limit.
 */
export const CLAIM = script(`
local now, limit, deadline, token = tonumber(ARGV[A]), tonumber(ARGV[A + 1]), ARGV[A + 2], ARGV[A + 3]
-- A lease holds up to and including its deadline.
local lapsed = redis.call('ZRANGEBYSCORE', leases, '-inf', '(' .. ARGV[A], 'LIMIT', 0, tonumber(ARGV[A + 5]))
for _, id in ipairs(lapsed) do
  local f = redis.call('HMGET', jobKey(id), 'state', 'attempts', 'max', 'runAt')
  if f[1] ~= 'running' then
    redis.call('ZREM', leases, id)
    if not f[1] then redis.call('ZREM', inState.running, id) end -- an orphan (see below)
  elseif num(f[2]) >= num(f[3]) then
    failRun(id, now, ARGV[A + 4], nil)
  else
    failRun(id, now, ARGV[A + 4], math.min(num(f[4]), now))
  end
end
local out = { retention() }
if limit <= 0 then return out end
local members = redis.call('ZRANGEBYSCORE', due, '-inf', now, 'LIMIT', 0, limit)
for _, member in ipairs(members) do
  local id = string.sub(member, 33)
  local job = jobKey(id)
  local state = redis.call('HGET', job, 'state')
  if state ~= 'pending' then
    -- An orphan: the job's hash is gone (evicted under a maxmemory policy, deleted by hand).
    -- Dropped from the line, so it can never block the jobs behind it.
    redis.call('ZREM', due, member)
    if not state then redis.call('ZREM', inState.pending, id) end
  else
    leave(id, 'pending')
    enter(id, 'running')
    redis.call('HINCRBY', job, 'attempts', 1)
    redis.call('HSET', job, 'updatedAt', now, 'tok', token)
    redis.call('ZADD', leases, deadline, id)
    out[#out + 1] = record(id)
  end
end
return out
`);

/** ARGV: id now token → {retention, 0|1}. */
export const COMPLETE = script(`
local id, now = ARGV[A], ARGV[A + 1]
if not leased(id, ARGV[A + 2]) then return { retention(), 0 } end
leave(id, 'running')
redis.call('HSET', jobKey(id), 'updatedAt', now)
enter(id, 'succeeded')
trim('succeeded')
return { retention(), 1 }
`);

/** ARGV: id now token message retryAt ('' = dead) → {retention, 0|1}. */
export const FAIL = script(`
local id = ARGV[A]
if not leased(id, ARGV[A + 2]) then return { retention(), 0 } end
local retryAt = nil
if ARGV[A + 4] ~= '' then retryAt = tonumber(ARGV[A + 4]) end
failRun(id, tonumber(ARGV[A + 1]), ARGV[A + 3], retryAt)
return { retention(), 1 }
`);

/** ARGV: id now token → 0|1. Back in line with its run-at (its place kept), the attempt refunded. */
export const RELEASE = script(`
local id = ARGV[A]
if not leased(id, ARGV[A + 2]) then return 0 end
local job = jobKey(id)
leave(id, 'running')
redis.call('HSET', job, 'attempts', math.max(0, num(redis.call('HGET', job, 'attempts')) - 1), 'updatedAt', ARGV[A + 1])
enter(id, 'pending')
redis.call('PUBLISH', wake, redis.call('HGET', job, 'runAt'))
return 1
`);

/** ARGV: deadline, then id token pairs → the ids whose lease this caller no longer holds. */
export const RENEW = script(`
local deadline, lost = ARGV[A], {}
for i = A + 1, #ARGV, 2 do
  local id = ARGV[i]
  if leased(id, ARGV[i + 1]) then redis.call('ZADD', leases, 'XX', deadline, id) else lost[#lost + 1] = id end
end
return lost
`);

/** ARGV: id now → 0|1. Dead → pending now, attempts reset, history kept. */
export const RETRY_DEAD = script(`
local id, now = ARGV[A], ARGV[A + 1]
local job = jobKey(id)
if redis.call('HGET', job, 'state') ~= 'dead' then return 0 end
leave(id, 'dead')
redis.call('HSET', job, 'attempts', 0, 'runAt', now, 'updatedAt', now)
enter(id, 'pending')
redis.call('PUBLISH', wake, now)
return 1
`);

/** ARGV: id → 0|1. */
export const DELETE_DEAD = script(`
local id = ARGV[A]
if redis.call('HGET', jobKey(id), 'state') ~= 'dead' then return 0 end
leave(id, 'dead')
redis.call('DEL', jobKey(id))
return 1
`);

/** ARGV: state limit → records in the state, oldest entry first. */
export const LIST = script(`
local out = {}
local limit = tonumber(ARGV[A + 1])
if limit <= 0 then return out end
for _, id in ipairs(redis.call('ZRANGE', inState[ARGV[A]], 0, limit - 1)) do out[#out + 1] = record(id) end
return out
`);

/** → {pending, running, succeeded, dead, retention}. */
export const COUNTS = script(`
return { redis.call('ZCARD', inState.pending), redis.call('ZCARD', inState.running),
  redis.call('ZCARD', inState.succeeded), redis.call('ZCARD', inState.dead), retention() }
`);

/** → record of ARGV id, or nil. */
export const GET = script(`
local id = ARGV[A]
if redis.call('EXISTS', jobKey(id)) == 0 then return nil end
return record(id)
`);
