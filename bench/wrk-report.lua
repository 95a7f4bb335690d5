-- Prints wrk's summary as one JSON line (requests/s, latency percentiles in ms, errors), and
-- when WRK_METHOD/WRK_BODY/WRK_HEADERS are set, sends that request instead of a GET.
-- With WRK_UNIQUE set, every request asks for a new address (`?fresh=N`), so the server cannot
-- answer from a page it kept and renders each one.
local method = os.getenv("WRK_METHOD")
local body = os.getenv("WRK_BODY")
local headers = os.getenv("WRK_HEADERS")

if os.getenv("WRK_UNIQUE") then
  local counter = 0
  function request()
    counter = counter + 1
    return wrk.format(nil, wrk.path .. "?fresh=" .. counter)
  end
end

function init(args)
  if method then wrk.method = method end
  if body then wrk.body = body end
  if headers then
    for line in string.gmatch(headers, "[^\n]+") do
      local name, value = string.match(line, "^([^:]+):%s*(.*)$")
      if name then wrk.headers[name] = value end
    end
  end
end

function done(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout
  io.write(string.format(
    '{"requests": %d, "seconds": %.3f, "rps": %.1f, "p50": %.3f, "p99": %.3f, "p999": %.3f, "max": %.3f, "errors": %d, "status_errors": %d}\n',
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency:percentile(99.9) / 1000, latency.max / 1000,
    errors, summary.errors.status))
end
