-- wt.route on three flows, loads worked out by hand.
local check = require "check"

local flows = {
  {src = {0, 0}, dst = {2, 0}, bytes = 100}, -- east along row 0: E of 0,0 and 1,0
  {src = {1, 0}, dst = {1, 2}, bytes = 50},  -- south along column 1: S of 1,0 and 1,1
  {src = {2, 1}, dst = {0, 0}, bytes = 30},  -- xy: west on row 1 (W of 2,1 and 1,1), north on column 0 (N of 0,1)
}
local function loads(t)
  local m = {}
  for _, l in ipairs(t.links) do m[l.x .. "," .. l.y .. "," .. l.dir] = l.bytes end
  return m
end

local xy = wt.route{layout = "default", routing = "xy", flows = flows}
local want = {["0,0,E"] = 100, ["1,0,E"] = 100, ["1,0,S"] = 50, ["1,1,S"] = 50,
              ["2,1,W"] = 30, ["1,1,W"] = 30, ["0,1,N"] = 30}
local got = loads(xy)
for k, v in pairs(want) do check.eq(got[k], v, "xy load " .. k) end
check.eq(#xy.links, 7, "xy loads seven links")
check.eq(xy.max_load_bytes, 100, "max load")
check.eq(xy.max_hops, 3, "max hops")
-- 2 TB/s links and 50 ns per hop on the default layout. fluid (the default):
-- no two flows share a link, so each ends its bytes over the bandwidth after
-- its own path's latency, the last the third flow's; bottleneck: the busiest
-- link plus the longest path
check.near(xy.time_s, 30 / 2e12 + 3 * 50e-9, 1e-12, "time")
check.near(wt.route{layout = "default", net = "bottleneck", flows = flows}.time_s, 100 / 2e12 + 3 * 50e-9, 1e-12,
  "bottleneck time")

-- yx: the third flow goes north first (N of 2,1), then west on row 0 (W of 2,0 and 1,0)
local yx = loads(wt.route{layout = "default", routing = "yx", flows = flows})
check.eq(yx["2,1,N"], 30, "yx north")
check.eq(yx["2,0,W"], 30, "yx west 2,0")
check.eq(yx["1,0,W"], 30, "yx west 1,0")
check.eq(yx["0,1,N"], nil, "yx leaves column 0 alone")

-- balanced: half each way
local bal = loads(wt.route{layout = "default", routing = "balanced", flows = {flows[3]}})
check.eq(bal["2,1,W"], 15, "balanced half xy")
check.eq(bal["2,1,N"], 15, "balanced half yx")

check.raises(function() wt.route{flows = {{src = {0, 0}, dst = {99, 0}, bytes = 1}}} end, "inside the 16x16 mesh",
  "destination off the mesh")
check.raises(function() wt.route{routing = "diagonal", flows = {}} end, "not one of xy, yx, balanced", "routing")
check.done("route")
