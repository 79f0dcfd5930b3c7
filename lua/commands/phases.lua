-- phases: the phases of one step with their times and link utilisation.
local args = require "args"
local fmt = require "fmt"

wt.command("phases", function(words, ctx)
  args.parse(words, "phases", {})
  local r = ctx.result
  local rows = {{"phase", "count", "compute", "comm", "time", "share", "link util", "busiest"}}
  for _, p in ipairs(r:phases()) do
    rows[#rows + 1] = {p.name, string.format("%.0f", p.count), fmt.time(p.compute_s), fmt.time(p.comm_s),
      fmt.time(p.time_s), fmt.pct(p.share), fmt.pct(p.max_link_util),
      p.busiest_link}
  end
  wt.print(string.format("step %s, bottleneck %s", fmt.time(r.step_time_s), r.bottleneck_phase))
  fmt.table(rows, wt.print)
end, [[phases
  every phase of the step: occurrences, compute, communication, time, its share
  of the step (the DP all-reduce: the part the backward does not hide), its
  busiest link's utilisation while it runs, and that link]])
