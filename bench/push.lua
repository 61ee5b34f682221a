-- wrk's side of the bench's request streams (bench/wrk.js writes the
-- config this reads, docs/benchmarks.md "The load"). One wrk thread walks
-- the checks in turn, as bench/load.js's CheckSet does: `change` sends
-- version + 1 of the next check, `replay` re-sends the version it holds,
-- `get` reads it. A body is '{"version":' .. v .. one of the tails that
-- load.js cut from its own checkBody, so both load generators send the
-- same bytes.
local config = dofile(os.getenv('BENCH_WRK_CONFIG'))
local versions = config.versions
local tails = config.tails
local count = config.count
local cursor = config.cursor
local path = config.base .. config.prefix
-- the request line and headers are written out once; wrk.format would
-- walk a table of headers for every request
local host = 'Host: ' .. wrk.host .. ':' .. wrk.port .. '\r\n'
local auth = 'Authorization: ' .. config.auth .. '\r\n'
local put_head = ' HTTP/1.1\r\n' .. host .. auth .. 'Content-Type: application/json\r\nContent-Length: '
local get_head = ' HTTP/1.1\r\n' .. host .. auth .. '\r\n'

-- read back by done() through thread:get, which copies numbers and strings only
generated = 0
ok = 0
bad = 0
bad_status = 0
created = 0
updated = 0
unchanged = 0
stale = 0
answered = 0

-- wrk builds one request before the run to check it, and never sends it:
-- that one is built without moving the walk on
local checked = false

local function build(i, v)
  if config.kind == 'get' then
    return 'GET ' .. path .. i .. get_head
  end
  local body = '{"version":' .. string.format('%d', v) .. tails[(i % 40) * 4 + v % 4 + 1]
  return 'PUT ' .. path .. i .. put_head .. #body .. '\r\n\r\n' .. body
end

function request()
  local i = cursor
  local v = versions[i + 1]
  if config.kind == 'change' or v == 0 then
    v = v + 1
  end
  if not checked then
    checked = true
    return build(i, v)
  end
  cursor = (cursor + 1) % count
  generated = generated + 1
  if config.kind ~= 'get' then
    versions[i + 1] = v
  end
  return build(i, v)
end

local function count_answer(status, headers)
  if status < 200 or status > 299 then
    bad = bad + 1
    bad_status = status
    return
  end
  ok = ok + 1
  local result = headers['x-tablepay-push-result']
  if result == 'created' then
    created = created + 1
  elseif result == 'updated' then
    updated = updated + 1
  elseif result == 'unchanged' then
    unchanged = unchanged + 1
  elseif result == 'stale' then
    stale = stale + 1
  else
    answered = answered + 1
  end
end

function response(status, headers)
  count_answer(status, headers)
  if config.amount and ok + bad == config.amount then
    -- wrk's main thread sleeps out -d whatever the threads do: bench/wrk.js
    -- reads this line and ends the run with SIGINT
    io.write('BENCH_AMOUNT_DONE\n')
    io.flush()
    wrk.thread:stop()
  end
end

-- a run of `amount` requests: each connection asks for a turn before it
-- sends, so that exactly `amount` requests leave
if config.amount then
  local granted = 0
  function delay()
    if granted < config.amount then
      granted = granted + 1
      return 0
    end
    return 3600000
  end
end

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function done(summary, latency)
  local t = threads[1]
  local e = summary.errors
  io.write(
    string.format(
      'BENCH {"generated":%d,"ok":%d,"bad":%d,"bad_status":%d,"created":%d,"updated":%d,"unchanged":%d,"stale":%d,"answered":%d,'
        .. '"duration_us":%d,"p99_us":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"cpu_s":%.3f}\n',
      t:get('generated'),
      t:get('ok'),
      t:get('bad'),
      t:get('bad_status'),
      t:get('created'),
      t:get('updated'),
      t:get('unchanged'),
      t:get('stale'),
      t:get('answered'),
      summary.duration,
      latency:percentile(99),
      e.connect,
      e.read,
      e.write,
      e.timeout,
      os.clock()
    )
  )
end
