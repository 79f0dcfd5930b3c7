-- hot_links: the links whose busiest window is at or above a utilisation
-- threshold, busiest first (the window: --window, 100 us by default).
local args = require "args"
local fmt = require "fmt"

wt.command("hot_links", function(words, ctx)
  local o = args.parse(words, "hot_links", {threshold = wt.hot})
  local hot, n = ctx.result:hot_links(o.threshold)
  wt.print(string.format("%d links at or above %s over a window", n, fmt.pct(o.threshold)))
  local rows = {{"link", "peak", "util", "hot", "bytes", "busy"}}
  for _, l in ipairs(hot) do
    rows[#rows + 1] = {string.format("%d,%d,%s", l.x, l.y, l.dir), fmt.pct(l.peak_util), fmt.pct(l.util),
      fmt.time(l.hot_s), fmt.bytes(l.bytes), fmt.time(l.busy_s)}
  end
  if #hot > 0 then fmt.table(rows, wt.print) end
end, [[hot_links [--threshold 0.9]
  the links whose busiest window (peak) is at or above the threshold (a
  fraction), busiest first; util is the step's average]])
