-- link_util's tiles equal means computed here from r:links() (over the
-- step, and by default over the busiest window); its hottest links are the
-- top of r:links() sorted by utilisation.
local check = require "check"

local r = wt.eval{strategy = "DP8,TATP16", placement = "linear"}
for _, over in ipairs{{"step", "util"}, {"peak", "peak_util"}, {nil, "peak_util"}} do
  local argv = {"--group", "4x4", "--format", "csv"}
  if over[1] then argv[#argv + 1], argv[#argv + 2] = "--over", over[1] end
  local lines = check.capture(function() wt.cmd("link_util", argv, r) end)
  check.eq(lines[1], "tile_x,tile_y,mean_util,max_util", "csv header")
  local sum, n, max = {}, {}, {}
  for _, l in ipairs(r:links()) do
    if not l.dead then
      assert(l.peak_util >= l.util, "peak_util >= util")
      local k = (l.y // 4) * 100 + l.x // 4
      sum[k] = (sum[k] or 0) + l[over[2]]
      n[k] = (n[k] or 0) + 1
      max[k] = math.max(max[k] or 0, l[over[2]])
    end
  end
  check.eq(#lines, 1 + 16, "a 16x16 mesh has 16 tiles of 4x4")
  for i = 2, #lines do
    local tx, ty, mean, mx = lines[i]:match("^(%d+),(%d+),([%d.e+-]+),([%d.e+-]+)$")
    local k = tonumber(ty) * 100 + tonumber(tx)
    check.near(tonumber(mean), sum[k] / n[k], 1e-5, over[2] .. " tile " .. tx .. "," .. ty .. " mean")
    check.near(tonumber(mx), max[k], 1e-5, over[2] .. " tile " .. tx .. "," .. ty .. " max")
  end
end

-- The phase view: utilisation while the phase runs; its max is the phase's.
local phase = r.phases[#r.phases - 1]
check.eq(phase.name, "dp.allreduce", "second to last phase")
local hottest = 0
for _, l in ipairs(r:links{phase = "dp.allreduce"}) do hottest = math.max(hottest, l.util) end
check.near(hottest, phase.max_link_util, 1e-9, "hottest link of dp.allreduce")

-- The table lists the N hottest as x,y,DIR util% bytes.
local table_lines = check.capture(function() wt.cmd("link_util", {"--top", "3", "--over", "step"}, r) end)
local links = r:links()
table.sort(links, function(a, b) return a.util > b.util end)
local tail = table_lines[#table_lines - 2]
check.eq(tail:match("^%d+,%d+,[EWNS] ([%d.]+)%%"), string.format("%.1f", 100 * links[1].util), "hottest util")
check.raises(function() wt.cmd("link_util", {"--bogus", "1"}, r) end, "unknown flag '%-%-bogus'", "bad flag")
check.raises(function() wt.cmd("link_util", {"--group", "4"}, r) end,
  "^link_util: %-%-group: expected WxH %(as 8x8%), got '4'$", "bad group")
check.done("link_util")
