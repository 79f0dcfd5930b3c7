-- wt.route's flow times, worked out by hand on row 0 of the default layout
-- (2 TB/s links, 50 ns a hop): A (2 MB) crosses 0,0->1,0 and 1,0->2,0,
-- B (1 MB) the first link, C (1 MB) the second.
local check = require "check"

local function A() return {src = {0, 0}, dst = {2, 0}, bytes = 2e6} end
local function B() return {src = {0, 0}, dst = {1, 0}, bytes = 1e6} end
local function C() return {src = {1, 0}, dst = {2, 0}, bytes = 1e6} end
local us = 1e-6

-- want: {start_s, bw_done_s, finish_s} per flow, in microseconds
local function times(t, want, time_s, what)
  check.eq(#t.flows, #want, what .. ": one time per flow")
  for i, w in ipairs(want) do
    check.near(t.flows[i].start_s, w[1] * us, 1e-12, what .. ": flow " .. i .. " start_s")
    check.near(t.flows[i].bw_done_s, w[2] * us, 1e-12, what .. ": flow " .. i .. " bw_done_s")
    check.near(t.flows[i].finish_s, w[3] * us, 1e-12, what .. ": flow " .. i .. " finish_s")
  end
  check.near(t.time_s, time_s * us, 1e-12, what .. ": time_s")
end

-- fluid, max-min: each link is split 1 TB/s to each of its two flows; B and
-- C move their 1 MB by 1 us, A has 1 MB left and runs alone at 2 TB/s for
-- 0.5 us. Latency: 2 hops for A, 1 for B and C.
local fluid = wt.route{net = "fluid", flows = {A(), B(), C()}}
times(fluid, {{0, 1.5, 1.6}, {0, 1, 1.05}, {0, 1, 1.05}}, 1.6, "max-min")
-- the loads are today's whatever the model
check.eq(fluid.max_load_bytes, 3e6, "max-min loads")
check.eq(fluid.max_hops, 2, "max-min hops")

-- equal bytes: all three at 1 TB/s, done together
local a = A()
a.bytes = 1e6
times(wt.route{net = "fluid", flows = {a, B(), C()}}, {{0, 1, 1.1}, {0, 1, 1.05}, {0, 1, 1.05}}, 1.1,
  "equal bytes")

-- priority: B first takes all of 0,0->1,0 (0.5 us, as alone); A waits
-- behind it, so C has 1,0->2,0 alone (0.5 us); then A alone for 1 us
local b = B()
b.priority = 1
times(wt.route{net = "fluid", flows = {A(), b, C()}}, {{0, 1.5, 1.6}, {0, 0.5, 0.55}, {0, 0.5, 0.55}}, 1.6,
  "priority")

-- start_s: C starts at 0.5 us. Until then A and B share the first link
-- (0.5 MB each). Then all three at 1 TB/s: B's last 0.5 MB by 1 us, when A
-- has 1 MB left and C 0.5 MB; A and C share the second link until C is done
-- at 1.5 us, and A's last 0.5 MB goes alone in 0.25 us.
local c = C()
c.start_s = 0.5 * us
times(wt.route{net = "fluid", flows = {A(), B(), c}}, {{0, 1.75, 1.85}, {0, 1, 1.05}, {0.5, 1.5, 1.55}}, 1.85,
  "start_s")

-- bottleneck: each link carries 3 MB (1.5 us) and every flow
-- is charged its busiest link's total; time_s is the busiest link plus the
-- longest path's latency, today's figure
local closed = wt.route{net = "bottleneck", flows = {A(), B(), C()}}
times(closed, {{0, 1.5, 1.6}, {0, 1.5, 1.55}, {0, 1.5, 1.55}}, 1.6, "bottleneck")
check.eq(closed.max_latency_s, 100e-9, "bottleneck latency")
-- priorities change nothing there; a start shifts the flow's closed form
check.near(wt.route{net = "bottleneck", flows = {A(), b, C()}}.flows[2].finish_s, 1.55 * us, 1e-12, "bottleneck ignores priority")
local late = B()
late.start_s = 1 * us
times(wt.route{net = "bottleneck", flows = {A(), late, C()}}, {{0, 1.5, 1.6}, {1, 2.5, 2.55}, {0, 1.5, 1.55}},
  2.55, "bottleneck start_s")
-- time_s may exceed every finish: the busiest link (A alone, 1 us) plus the
-- longest path (an empty flow of 10 hops, 500 ns)
local far = {src = {0, 5}, dst = {10, 5}, bytes = 0}
times(wt.route{net = "bottleneck", flows = {A(), far}}, {{0, 1, 1.1}, {0, 0, 0.5}}, 1.5, "bottleneck time_s")
times(wt.route{net = "fluid", flows = {A(), far}}, {{0, 1, 1.1}, {0, 0, 0.5}}, 1.1, "fluid time_s")

-- balanced: 1 MB from 0,0 to 2,1 goes half x-first, half y-first, on
-- disjoint links: 0.5 MB each at 2 TB/s, 0.25 us, then 3 hops
for _, net in ipairs{"fluid", "bottleneck"} do
  times(wt.route{net = net, routing = "balanced", flows = {{src = {0, 0}, dst = {2, 1}, bytes = 1e6}}},
    {{0, 0.25, 0.4}}, 0.4, "balanced " .. net)
end

-- no flows: nothing to time
check.eq(wt.route{net = "fluid", flows = {}}.time_s, 0, "no flows")

-- bad input names the field and the flow
local function bad(flow, pattern, what)
  check.raises(function() wt.route{flows = {A(), flow}} end, pattern, what)
end
local function with(k, v) local f = B(); f[k] = v; return f end
bad(with("bytes", -1), "flow 2: bytes must be a finite number >= 0", "negative bytes")
bad(with("bytes", math.huge), "flow 2: bytes must be a finite number >= 0", "infinite bytes")
bad(with("bytes", "lots"), "flow 2: bytes must be a finite number >= 0", "bytes not a number")
bad(with("bytes", nil), "flow 2: bytes is missing", "no bytes")
bad(with("start_s", -1e-6), "flow 2: start_s must be a finite number >= 0", "negative start_s")
bad(with("start_s", 0 / 0), "flow 2: start_s must be a finite number >= 0", "NaN start_s")
bad(with("start_s", math.huge), "flow 2: start_s must be a finite number >= 0", "infinite start_s")
bad(with("priority", 1.5), "flow 2: priority must be a whole number", "fractional priority")
bad(with("priority", "high"), "flow 2: priority must be a whole number", "priority not a number")
bad(with("prio", 1), "flow 2: unknown field 'prio' %(fields: src, dst, bytes, start_s, priority%)", "flow field")
bad(42, "flow 2 must be a table", "flow not a table")
check.raises(function() wt.route{flows = {A()}, nett = "fluid"} end,
  "wt.route: unknown field 'nett' %(fields: layout, routing, net, flows, packet_flits%)", "top field")
check.raises(function() wt.route{net = "flow", flows = {A()}} end, "net 'flow' is not one of fluid, bottleneck",
  "unknown net")
check.done("route_times")
