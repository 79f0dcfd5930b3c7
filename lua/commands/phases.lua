-- phases: the phases of one step with their times and link utilisation.
local args = require "args"
local fmt = require "fmt"

wt.command("phases", function(words, ctx)
  args.parse(words, "phases", {})
  local r = ctx.result
  local rows = {{"phase", "count", "compute", "comm", "time", "share", "link util"}}
  for _, p in ipairs(r:phases()) do
    rows[#rows + 1] = {p.name, string.format("%.0f", p.count), fmt.time(p.compute_s), fmt.time(p.comm_s),
      fmt.time(p.time_s), fmt.pct(p.count * p.time_s / r.step_time_s), fmt.pct(p.max_link_util)}
  end
  wt.print(string.format("step %s, bottleneck %s", fmt.time(r.step_time_s), r.bottleneck_phase))
  fmt.table(rows, wt.print)
end, [[phases
  every phase of the step: occurrences, compute, communication, time, share]])
