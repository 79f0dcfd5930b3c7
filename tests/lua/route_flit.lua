-- wt.route{net = "flit"}: flows cycle by cycle on the default layout's
-- routers (BookSim2's defaults, 16-byte flits at 2 TB/s: a cycle is 8 ps),
-- each figure worked out by hand: a packet of one flit over R routers
-- arrives 4 R + 2 cycles after it starts.
local check = require "check"
local ps = 1e-12

-- one flit from 0,0 to 2,0: 3 routers, 14 cycles; the two links it crosses
local t = wt.route{net = "flit", flows = {{src = {0, 0}, dst = {2, 0}, bytes = 16}}}
check.near(t.cycle_s, 8 * ps, 1e-12, "a cycle")
check.near(t.flows[1].finish_s, 14 * 8 * ps, 1e-12, "one flit: finish")
check.near(t.time_s, 14 * 8 * ps, 1e-12, "one flit: time")
check.eq(t.max_hops, 2, "one flit: hops")
check.eq(#t.links, 2, "one flit: links")
for _, l in ipairs(t.links) do
  check.eq(l.dir, "E", "one flit: east")
  check.eq(l.bytes, 16, "one flit: bytes")
  check.eq(l.buffer_peak, 1, "one flit: the buffer it waits in")
end

-- starting 100 cycles later, it arrives 100 cycles later
t = wt.route{net = "flit", flows = {{src = {0, 0}, dst = {2, 0}, bytes = 16, start_s = 800 * ps}}}
check.near(t.flows[1].start_s, 800 * ps, 1e-12, "later: start")
check.near(t.flows[1].finish_s, 114 * 8 * ps, 1e-12, "later: finish")

-- 4 flits from each side into 1,0 in one packet each: both heads reach
-- router 1 in cycle 6, then its one ejection port takes a flit a cycle,
-- the east side's first (BookSim2's port order): east flits leave in 7, 9,
-- 11, 13 (its tail arrives in 16), west flits in 8, 10, 12, 14 (17)
t = wt.route{net = "flit", packet_flits = 4, flows = {
  {src = {0, 0}, dst = {1, 0}, bytes = 64},
  {src = {2, 0}, dst = {1, 0}, bytes = 64}}}
check.near(t.flows[2].finish_s, 16 * 8 * ps, 1e-12, "two into one: east")
check.near(t.flows[1].finish_s, 17 * 8 * ps, 1e-12, "two into one: west")
-- one packet of a flit at a time: each of 4 packets bids for a VC again
local one = wt.route{net = "flit", flows = {{src = {0, 0}, dst = {1, 0}, bytes = 64}}}
check.near(one.flows[1].finish_s, (10 + 3) * 8 * ps, 1e-12, "4 packets of a flit: one a cycle")

-- a link between wafers at half the on-wafer rate takes a flit every 2
-- cycles: 16 flits from 0,0 to 3,0 in one packet, the head wins router 1's
-- switch in cycle 7 and arrives in 18; the body flits, spaced out, take 9
-- from their grants: the tail's is in 7 + 15 x 2, its arrival 46
t = wt.route{net = "flit", packet_flits = 16, layout = "tests/fixtures/layouts/two-wafers-slow.yaml",
  flows = {{src = {0, 0}, dst = {3, 0}, bytes = 256}}}
check.near(t.flows[1].finish_s, 46 * 8 * ps, 1e-12, "a slow link between wafers")
t = wt.route{net = "flit", packet_flits = 16, flows = {{src = {0, 0}, dst = {3, 0}, bytes = 256}}}
check.near(t.flows[1].finish_s, 33 * 8 * ps, 1e-12, "the same on one wafer")

check.raises(function() wt.route{net = "flit", layout = "wse2", flows = {}} end,
  "net flit: the 750x1134 mesh is beyond the flit level's 64x64", "too large")
-- balanced: 2 flits of 1,1 -> 0,0, one X first (1,1 W then 0,1 N), one Y
-- first (1,1 N then 1,0 W): the unit injects a flit a cycle, so the second
-- leaves in cycle 1 and arrives in 1 + 4 x 3 + 2
t = wt.route{net = "flit", routing = "balanced", flows = {{src = {1, 1}, dst = {0, 0}, bytes = 32}}}
check.eq(#t.links, 4, "balanced: both paths")
for _, l in ipairs(t.links) do check.eq(l.bytes, 16, "balanced: a flit each") end
check.near(t.flows[1].finish_s, 15 * 8 * ps, 1e-12, "balanced: finish")
check.raises(function() wt.route{packet_flits = 4, flows = {}} end, "packet_flits is for net = \"flit\"",
  "packet_flits without flit")
check.raises(function() wt.route{net = "flit", packet_flits = 0, flows = {}} end,
  "packet_flits must be a whole number from 1 to 1024", "packet_flits 0")
check.raises(function() wt.route{net = "flit", flows = {{src = {0, 0}, dst = {1, 0}, bytes = 1e12}}} end,
  "at most 16777216 %(scale the bytes down%)", "too many flits")
check.raises(function() wt.route{net = "flit", flows = {{src = {0, 0}, dst = {1, 0}, bytes = 16, start_s = 1e300}}} end,
  "flow 1: net flit: start_s is beyond the flit level's 2%^40 cycles", "start far away")
-- a flow that starts a millisecond in: the idle cycles cost nothing
t = wt.route{net = "flit", flows = {{src = {0, 0}, dst = {2, 0}, bytes = 16, start_s = 1e-3}}}
check.near(t.flows[1].finish_s, 1e-3 + 14 * 8 * ps, 1e-12, "a millisecond in")
check.done("route_flit")
