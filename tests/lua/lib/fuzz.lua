-- fuzz: random actions on a live session, each one checked. Shared by
-- tests/lua/session_fuzz.lua (sessions a script makes) and
-- tests/fixtures/policies/fuzz.lua (the session a policy's hooks get).
--
-- An action must succeed or raise a non-empty string, never crash; what it
-- is sure to accept it must accept, what is wrong it must refuse, and a
-- success must show in the session. A step's result must hold the
-- invariants of check_result. Some actions may run with the Lua state's
-- memory nearly full: a refusal for memory must be as clean as any other.
-- A violation prints every action so far and raises an error that says
-- what repeats the run.
--
--   local fuzz = require "fuzz"
--   local f = fuzz.new{seed = 7, w = 5, h = 5, dead = {}}   -- dead: base faults, by "x,y"
--   f:act(s)          -- one random action on session s (a step among them)
local M = {}
M.__index = M

local INT_MAX = 2147483647
-- what luaL_checkinteger refuses, or a C int cannot hold
local ODD_INTS = {0, -1, -2147483648, 2147483648, 4294967297, 4294967298, math.maxinteger, math.mininteger, 1.5,
                  0 / 0, math.huge, -math.huge, "x", true}
local MODES = {"xy", "yx", "balanced"}
local PLACEMENTS = {"linear", "snake", "tiles"}
local DIRS = {"E", "W", "N", "S"}
local BAD_PHASES = {"", "nonsense", "fwd", "dp", "all.", "dp.allreduce.x", "%s%n", string.rep("p", 80)}
-- options of a strategy table; the first of each list is what the text form leaves
local OPTIONS = {
  {"placement", {"tiles", "linear", "snake"}},
  {"collective", {"ring", "bidir", "2d", "hier", "auto"}},
  {"routing", {"xy", "yx", "balanced"}},
  {"checkpoint", {"none", "selective", "full"}},
  {"mem", {"none", "zero", "act_int8", "zero,grad_fp8", {"zero", "act_int8", "grad_fp8"}}},
  {"grad_compress", {"none", "fp8", "1bit"}},
  {"chunk", {0, "256KB", "1MB", 65536}},
  {"subgroup", {"8x8", "2x2", "4x4", "3x5", "1x16"}},
  {"tp_seqpar", {true, false, "on", "off"}},
}
-- strategies every layer must refuse
local BAD_STRATEGIES = {
  "", "garbage", "DP0", "DP-1", "TP0,DP2", "DP2,DP4", "(8,1,1)", "(1,1,1,1,1,1)", "TATP3x0", "TATP0x3",
  "TP2x2", "TATP65536x65536", "DP2147483647,TP2", "DP4294967297", "TP99999999", "DP1e9", "DP2;TP2",
  42, true, {1, 2}, {dp = 0}, {tp = -2}, {tatp = 4, tatp_grid = "3x3"}, {tatp_grid = "0x2"}, {tatp_grid = "2x"},
  {foo = 1}, {dp = 1.5}, {dp = 2 ^ 40}, {dp = "x"}, {placement = "nope"}, {chunk = -5}, {chunk = "-1KB"},
  {chunk = "nan KB"}, {chunk = 0 / 0}, {chunk = math.huge}, {subgroup = "0x0"}, {subgroup = "99999999999x1"},
  {tp_seqpar = "maybe"}, {mem = "zero,bogus"}, {collective = 7}, {text = "DP0"}, {0, 1, 1, 1, 1},
  {dp = 1073741824, tp = 1073741824, sp = 1073741824}, {tatp_grid = "65536x65536"}, {tatp = 1073741824},
}

local function new_rng(seed)
  local x = seed ~ 0x9E3779B97F4A7C15
  if x == 0 then x = 1 end
  return function(n) -- xorshift64*: 1..n
    x = x ~ (x >> 12)
    x = x ~ (x << 25)
    x = x ~ (x >> 27)
    return ((x * 0x2545F4914F6CDD1D) >> 11) % n + 1
  end
end

-- A value as Lua source, keys sorted, so the log reads as the calls made.
local function show(v)
  if type(v) == "string" then return string.format("%q", v) end
  if type(v) == "number" then
    if v ~= v then return "0/0" end
    if v == math.huge or v == -math.huge then return (v < 0 and "-" or "") .. "math.huge" end
    return math.type(v) == "float" and string.format("%.17g", v) or tostring(v)
  end
  if type(v) ~= "table" then return tostring(v) end
  local keys, parts = {}, {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do
    parts[#parts + 1] = (type(k) == "string" and k or "[" .. show(k) .. "]") .. " = " .. show(v[k])
  end
  return "{" .. table.concat(parts, ", ") .. "}"
end
M.show = show

-- The session's strategy with its options, as one string to compare.
local function setup(s)
  local st, parts = s.strategy, {}
  for i, k in ipairs{"text", "placement", "collective", "routing", "checkpoint", "mem", "grad_compress", "chunk",
                     "subgroup", "tp_seqpar"} do
    parts[i] = tostring(st[k])
  end
  return table.concat(parts, " ")
end

-- v as luaL_checkinteger reads it, or nil when it refuses it.
local function as_int(v)
  if type(v) == "string" then v = tonumber(v) end
  return type(v) == "number" and math.tointeger(v) or nil
end

local function c_int(v, lo, hi)
  local i = as_int(v)
  return i ~= nil and i >= lo and i <= hi
end

local function finite(x)
  return type(x) == "number" and x == x and x > -math.huge and x < math.huge
end

-- A strategy text as the fuzzer keeps it: the value, its dimensions and
-- whether it gives DP.
local function entry(text)
  local st = wt.strategy(text)
  local d = {dp = st.dp, tp = st.tp, sp = st.sp, pp = st.pp, tatp = st.tatp}
  return {x = text, d = d, given = text:lower():find("dp") ~= nil or text:find("^%s*%(") ~= nil}
end

-- o: seed (integer), w, h (the mesh), dead (the layout's dead units, a set
-- of "x,y"), strategy (the session's, as text), weights (name -> weight,
-- overriding M.actions'), again (what repeats the run, for a failure),
-- squeeze (the share of actions run with the memory nearly full).
function M.new(o)
  local first = entry(o.strategy)
  local f = setmetatable({seed = o.seed, again = o.again, squeeze = o.squeeze, rand = new_rng(o.seed), w = o.w,
                          h = o.h, base_dead = o.dead or {},
                          pool = {first}, weights = o.weights or {}, log = {}, steps = 0, must_step = false,
                          evaluated = false, held = {}, dp_given = first.given, counts = {}}, M)
  f:repaired()
  return f
end

-- A new session of the same layout took over: the layout's faults, its
-- strategy; the results held from the old one stay.
function M:restart(strategy)
  self:repaired()
  self.evaluated, self.must_step, self.phases, self.dp_given = false, false, nil, entry(strategy).given
end

function M:int(lo, hi) return lo + self.rand(hi - lo + 1) - 1 end
function M:pick(list) return list[self.rand(#list)] end
function M:chance(p) return self.rand(1000) <= p * 1000 end

-- Mostly a whole number in lo..hi, sometimes one from ODD_INTS.
function M:arg_int(lo, hi)
  if self:chance(0.85) then return self:int(lo, hi) end
  return self:pick(ODD_INTS)
end

function M:note(what) self.log[#self.log + 1] = what end

-- Prints the actions so far (an error message would be cut short) and
-- raises the failure with what repeats them.
function M:fail(msg)
  print(string.format("seed %d, %d actions (the last failed):\n  %s", self.seed, #self.log,
                      table.concat(self.log, "\n  ")))
  error(string.format("%s (seed %d, after the actions printed; again: %s)", msg, self.seed, self.again), 0)
end

function M:check(cond, msg)
  if not cond then self:fail(msg) end
end

function M:repaired()
  self.dead = {}
  for k in pairs(self.base_dead) do self.dead[k] = true end
end

function M:live_units()
  local n = self.w * self.h
  for _ in pairs(self.dead) do n = n - 1 end
  return n
end

-- A phase name: mostly one of the last step's, sometimes nonsense; and
-- whether tuning it must be taken (true), refused (false) or either (nil).
-- A name of the last step's must be taken while nothing but tuning changed.
function M:phase()
  if self.phases and #self.phases > 0 and self:chance(0.8) then
    return self:pick(self.phases), self.must_step or nil
  end
  if self:chance(0.3) then return self:pick{"dp.allreduce", "bwd.mlp.in", "fwd.attn.qkv", "pp.p2p"}, nil end
  return self:pick(BAD_PHASES), false
end

-- A strategy to set, the answer it must get ("err", or nil for either),
-- the dimensions it asks for and whether it gives DP.
function M:strategy()
  if self:chance(0.4) then
    local e = self:pick(self.pool)
    return e.x, nil, e.d, e.given
  end
  if self:chance(0.15) then return self:pick(BAD_STRATEGIES), "err" end
  local units = self:live_units()
  if self:chance(0.1) then units = units * 4 end -- too many, to be refused
  local d = {dp = 1, tp = 1, sp = 1, pp = 1, tatp = 1}
  local left = math.max(units, 1)
  for _, k in ipairs{"tp", "sp", "pp", "tatp", "dp"} do
    local v = self:pick{1, 1, 1, 2, 2, 3, 4, 4, 5, 6, 8, 9, 12, 16}
    if v <= left and self:chance(0.6) then
      d[k] = v
      left = left // v
    end
  end
  local grid
  if d.tatp > 1 and self:chance(0.3) then
    local gw = self:pick{1, 2, 3, 4}
    if d.tatp % gw == 0 then grid = string.format("%dx%d", gw, d.tatp // gw) end
  end
  local given = self:chance(0.6)
  local shape = self:int(1, 4)
  if shape == 1 then -- text
    local parts = {}
    for _, k in ipairs{"dp", "tp", "sp", "pp", "tatp"} do
      if (k == "dp" and given) or (k ~= "dp" and (d[k] > 1 or self:chance(0.2))) then
        parts[#parts + 1] = (self:chance(0.5) and k:upper() or k) ..
                            ((k == "tatp" and grid) and grid or tostring(d[k]))
      end
    end
    if #parts == 0 then
      parts[1] = "DP" .. d.dp
      given = true
    end
    return table.concat(parts, self:chance(0.5) and "," or " "), nil, d, given
  elseif shape == 2 then -- tuple
    return string.format("(%d,%d,%d,%d,%d)", d.dp, d.tp, d.sp, d.pp, d.tatp), nil, d, true
  end
  local t = {}
  if shape == 3 then
    t = {d.dp, d.tp, d.sp, d.pp, d.tatp}
    given = true
  else
    for _, k in ipairs{"dp", "tp", "sp", "pp", "tatp"} do
      if (k == "dp" and given) or (k ~= "dp" and (d[k] > 1 or self:chance(0.3))) then t[k] = d[k] end
    end
  end
  if grid then t.tatp_grid = grid end
  for _, opt in ipairs(OPTIONS) do
    if self:chance(0.25) then t[opt[1]] = self:pick(opt[2]) end
  end
  return t, nil, d, given
end

-- The session's strategy must show the dimensions just set.
function M:check_dims(s, d, given, what)
  local st = s.strategy
  for _, k in ipairs{"tp", "sp", "pp", "tatp"} do
    self:check(st[k] == d[k], string.format("%s: session strategy %s has %s %s, want %s", what, st.text, k,
                                            tostring(st[k]), d[k]))
  end
  if given then
    self:check(st.dp == d.dp, string.format("%s: session strategy %s has dp %s, want %d", what, st.text,
                                            tostring(st.dp), d.dp))
  end
end

-- The invariants of a step's result; exact: r is the step just taken, so
-- it must show the session's strategy.
function M:check_result(s, r, what, exact)
  local t = r.step_time_s
  self:check(finite(t) and t > 0, what .. ": step_time_s " .. tostring(t))
  self:check(finite(r.tokens_per_s) and r.tokens_per_s > 0, what .. ": tokens_per_s " .. tostring(r.tokens_per_s))
  local util, mean = r.max_link_util, r.mean_link_util
  self:check(finite(util) and util >= 0 and util <= 1 + 1e-9, what .. ": max_link_util " .. tostring(util))
  self:check(finite(mean) and mean >= 0 and mean <= util * (1 + 1e-12),
             what .. ": mean_link_util " .. tostring(mean) .. " above the max " .. tostring(util))
  for _, p in ipairs(r:phases()) do
    local name = what .. ": phase " .. tostring(p.name)
    self:check(finite(p.time_s) and finite(p.compute_s) and finite(p.comm_s), name .. ": a time is not finite")
    self:check(p.compute_s >= 0 and p.comm_s >= 0, name .. ": a negative time")
    self:check(p.time_s >= p.compute_s * (1 - 1e-12),
               string.format("%s: time %.17g below its compute %.17g", name, p.time_s, p.compute_s))
    self:check(finite(p.max_link_util) and p.max_link_util >= 0 and p.max_link_util <= 1 + 1e-9,
               name .. ": max_link_util " .. tostring(p.max_link_util))
  end
  local m = r.memory
  self:check(m.total > 0 and m.capacity > 0 and m.fits == (m.total <= m.capacity),
             string.format("%s: memory %.17g of %.17g says fits=%s", what, m.total, m.capacity, tostring(m.fits)))
  self:check(r.units_used >= 1 and r.units_used <= r.units_live and r.units_live <= r.units_total,
             string.format("%s: units used %d, live %d, total %d", what, r.units_used, r.units_live, r.units_total))
  self:check(r.units_total == self.w * self.h, what .. ": units_total " .. r.units_total)
  -- a result kept across faults counts the units live at its step
  self:check(self.faulted or r.units_live == self:live_units(),
             string.format("%s: %d live units, want %d", what, r.units_live, self:live_units()))
  if not exact then return end
  local got, want = r.strategy, s.strategy
  local keys = {"tp", "sp", "pp", "tatp", "placement", "routing", "checkpoint", "mem", "grad_compress", "chunk",
                "subgroup", "tp_seqpar"}
  if self.dp_given then keys[#keys + 1] = "dp" end
  if want.collective ~= "auto" then keys[#keys + 1] = "collective" end
  if want.tatp_grid then keys[#keys + 1] = "tatp_grid" end
  for _, k in ipairs(keys) do
    self:check(got[k] == want[k], string.format("%s: the result's strategy %s has %s = %s, the session's %s has %s",
                                                what, got.text, k, tostring(got[k]), want.text, tostring(want[k])))
  end
end

-- Checks the result r of the step s just took, and takes note of it.
function M:stepped(s, r)
  self:check_result(s, r, "step " .. s.steps, true)
  self.phases = {}
  for i, p in ipairs(r:phases()) do self.phases[i] = p.name end
  self.last_time = r.step_time_s
  self.evaluated = true
  self.faulted = false
  self.must_step = true
  if self.last_set and #self.pool < 16 then self.pool[#self.pool + 1] = self.last_set end
  self.last_set = nil
  if #self.held < 4 then self.held[#self.held + 1] = r else self.held[self:int(1, 4)] = r end
end

-- The actions: make(f, s) -> description, thunk, the answer it must get
-- ("ok", "err" or nil for either), and a check of a success. tuning: the
-- action changes nothing a step could fail on. weight: how often.
M.actions = {
  {name = "step", weight = 30, make = function(f, s)
    local before = s.steps
    return "s:step()", function() return s:step() end, f.must_step and "ok" or nil, function(r)
      f:check(s.steps == before + 1, "step: steps went from " .. before .. " to " .. s.steps)
      f:stepped(s, r)
    end, function()
      f:check(s.steps == before, "a failed step counted")
    end
  end},
  {name = "result", weight = 3, tuning = true, make = function(f, s)
    return "s:result()", function() return s:result() end, "ok", function(r)
      f:check((r ~= nil) == f.evaluated, "result: " .. tostring(r) .. " but evaluated is " .. tostring(f.evaluated))
      if r then f:check_result(s, r, "result", false) end
    end
  end},
  {name = "fields", weight = 2, tuning = true, make = function(f, s)
    return "s.steps, s.strategy, s.layout, s.model, tostring(s)", function()
      return {s.steps, s.strategy.text, s.layout, s.model, tostring(s), s.nonsense}
    end, "ok", function(t)
      f:check(math.type(t[1]) == "integer" and type(t[2]) == "string" and type(t[3]) == "string" and
              type(t[4]) == "string" and t[5]:find("wafertop.session") and t[6] == nil, "fields: " .. show(t))
    end
  end},
  {name = "set_strategy", weight = 8, make = function(f, s)
    local x, want, d, given = f:strategy()
    return "s:set_strategy(" .. show(x) .. ")", function() return s:set_strategy(x) end, want, function()
      f:check_dims(s, d, given, "set_strategy")
      f.dp_given = given
      f.last_set = {x = x, d = d, given = given}
    end
  end},
  {name = "set_placement", weight = 4, make = function(f, s)
    local p = f:chance(0.85) and f:pick(PLACEMENTS) or f:pick{"spiral", "", "LINEAR", 42}
    local good = type(p) == "string" and p ~= "" and string.find("linear snake tiles", p:lower(), 1, true) ~= nil
    return "s:set_placement(" .. show(p) .. ")", function() return s:set_placement(p) end, good and "ok" or "err",
      function() f:check(s.strategy.placement == p:lower(), "set_placement: " .. s.strategy.placement) end
  end},
  {name = "set_subgroup", weight = 4, make = function(f, s)
    local a, b = f:arg_int(1, f.w + 1), f:arg_int(1, f.h + 1)
    if f:chance(0.05) then a, b = INT_MAX, INT_MAX end
    -- up to the text form's limit it must be taken; beyond a C int, refused
    local want = (c_int(a, 1, 1 << 24) and c_int(b, 1, 1 << 24) and "ok") or
                 ((not c_int(a, 1, INT_MAX) or not c_int(b, 1, INT_MAX)) and "err") or nil
    return string.format("s:set_subgroup(%s, %s)", show(a), show(b)), function() return s:set_subgroup(a, b) end,
      want, function()
        f:check(s.strategy.subgroup == as_int(a) .. "x" .. as_int(b) and s.strategy.collective == "hier",
                "set_subgroup: " .. s.strategy.subgroup .. " " .. s.strategy.collective)
      end
  end},
  {name = "set_routing", weight = 6, tuning = true, make = function(f, s)
    local mode = f:chance(0.9) and f:pick(MODES) or f:pick{"zigzag", "", 3}
    local good_mode = mode == "xy" or mode == "yx" or mode == "balanced"
    if f:chance(0.3) then
      local all = f:chance(0.5) and "all"
      local call = all and function() return s:set_routing(all, mode) end or function() return s:set_routing(mode) end
      return string.format("s:set_routing(%s%s)", all and '"all", ' or "", show(mode)), call,
        good_mode and "ok" or "err", function()
          f:check(s.strategy.routing == mode, "set_routing all: " .. s.strategy.routing)
        end
    end
    local phase, known = f:phase()
    local want = not good_mode and "err" or (known == true and "ok") or (known == false and "err") or nil
    return string.format("s:set_routing(%s, %s)", show(phase), show(mode)),
      function() return s:set_routing(phase, mode) end, want
  end},
  {name = "delay", weight = 6, tuning = true, make = function(f, s)
    local phase, known = f:phase()
    local waves = f:arg_int(1, 5)
    local good = c_int(waves, 1, 4)
    local want = not good and "err" or (known == true and "ok") or (known == false and "err") or nil
    return string.format("s:delay(%s, %s)", show(phase), show(waves)), function() return s:delay(phase, waves) end,
      want
  end},
  {name = "set_priority", weight = 4, tuning = true, make = function(f, s)
    if f:chance(0.15) then return "s:set_priority(nil)", function() return s:set_priority(nil) end, "ok" end
    local phase, known = f:phase()
    local form = f:int(1, 3) -- no level (1), a nil level (0), or a level
    if form < 3 then
      local call = form == 1 and function() return s:set_priority(phase) end or
                   function() return s:set_priority(phase, nil) end
      return string.format("s:set_priority(%s%s)", show(phase), form == 1 and "" or ", nil"), call,
        known == true and "ok" or known == false and "err" or nil
    end
    local level = f:chance(0.8) and f:int(-3, 3) or f:pick{1.5, "2", math.huge, 2^40, 2.0, -(2^31)}
    local good = type(level) == "number" and c_int(level, -(1 << 31), (1 << 31) - 1)
    local want = not good and "err" or (known == true and "ok") or (known == false and "err") or nil
    return string.format("s:set_priority(%s, %s)", show(phase), show(level)),
      function() return s:set_priority(phase, level) end, want
  end},
  {name = "fail_link", weight = 4, make = function(f, s)
    local x, y = f:arg_int(-1, f.w), f:arg_int(-1, f.h)
    local dir = f:chance(0.9) and f:pick(DIRS) or f:pick{"Q", "", 7}
    local xi, yi = as_int(x), as_int(y)
    local dx, dy = ({E = 1, W = -1})[dir] or 0, ({S = 1, N = -1})[dir] or 0
    local good = c_int(x, 0, f.w - 1) and c_int(y, 0, f.h - 1) and (dx ~= 0 or dy ~= 0) and
                 xi + dx >= 0 and xi + dx < f.w and yi + dy >= 0 and yi + dy < f.h
    return string.format("s:fail_link(%s, %s, %s)", show(x), show(y), show(dir)),
      function() return s:fail_link(x, y, dir) end, good and "ok" or "err", function() f.faulted = true end
  end},
  {name = "fail_unit", weight = 4, make = function(f, s)
    local x, y = f:arg_int(-1, f.w), f:arg_int(-1, f.h)
    local good = c_int(x, 0, f.w - 1) and c_int(y, 0, f.h - 1)
    return string.format("s:fail_unit(%s, %s)", show(x), show(y)), function() return s:fail_unit(x, y) end,
      good and "ok" or "err", function()
        f.dead[as_int(x) .. "," .. as_int(y)] = true
        f.faulted = true
      end
  end},
  -- many faults at once, so that strategies stop fitting or routes vanish
  {name = "storm", weight = 1, make = function(f, s)
    if f.w > 1 and f:chance(0.5) then
      local x = f:int(0, f.w - 2)
      return string.format("for y = 0, %d do s:fail_link(%d, y, \"E\") end", f.h - 1, x), function()
        for y = 0, f.h - 1 do s:fail_link(x, y, "E") end
      end, "ok", function() f.faulted = true end
    end
    local units = {}
    for i = 1, f:int(1, f.w * f.h) do units[i] = {f:int(0, f.w - 1), f:int(0, f.h - 1)} end
    return "for _, u in ipairs(" .. show(units) .. ") do s:fail_unit(u[1], u[2]) end", function()
      for _, u in ipairs(units) do s:fail_unit(u[1], u[2]) end
    end, "ok", function()
      for _, u in ipairs(units) do f.dead[u[1] .. "," .. u[2]] = true end
      f.faulted = true
    end
  end},
  {name = "repair", weight = 2, make = function(f, s)
    return "s:repair()", function() return s:repair() end, "ok", function()
      f:repaired()
      f.faulted = true
    end
  end},
  -- a result from steps ago: it must still answer after everything since
  {name = "held_result", weight = 3, tuning = true, make = function(f, s)
    if #f.held == 0 then return "(no result held)", function() end, "ok" end
    local i = f:int(1, #f.held)
    local r = f.held[i]
    local x, y = f:int(-1, f.w), f:int(-1, f.h)
    local phase = f:phase()
    local calls = {
      {"r:phases()", function() return r:phases() end},
      {"r:memory()", function() return r:memory() end},
      {"r:units()", function() return r:units() end},
      {"r:links()", function() return r:links() end},
      {"r:links{phase = " .. show(phase) .. "}", function() return r:links{phase = phase} end},
      {"r:hot_links(0.01)", function() return r:hot_links(0.01) end},
      {string.format("r:link(%d, %d, %q)", x, y, "E"), function() return r:link(x, y, "E") end},
    }
    local c = f:pick(calls)
    return string.format("held result %d: %s", i, c[1]), c[2], nil
  end},
  -- methods called wrongly: on what is not a session, or short of arguments
  {name = "misuse", weight = 1, tuning = true, make = function(f, s)
    local calls = {
      {"s.step(nil)", function() return s.step(nil) end},
      {"s.step({})", function() return s.step({}) end},
      {"s:delay(nil, 2)", function() return s:delay(nil, 2) end},
      {"s:set_routing()", function() return s:set_routing() end},
      {"s:fail_link(0, 0)", function() return s:fail_link(0, 0) end},
      {"s:set_strategy()", function() return s:set_strategy() end},
      {"s:set_subgroup(2)", function() return s:set_subgroup(2) end},
    }
    if f.held[1] then calls[#calls + 1] = {"s.step(result)", function() return s.step(f.held[1]) end} end
    local c = f:pick(calls)
    return c[1], c[2], "err"
  end},
  {name = "collect", weight = 1, tuning = true, make = function(f, s)
    if f:chance(0.5) then f.held = {} end
    return "collectgarbage()", function() collectgarbage() end, "ok"
  end},
}

function M:pick_action()
  local total = 0
  for _, a in ipairs(M.actions) do total = total + (self.weights[a.name] or a.weight) end
  local k = self.rand(total)
  for _, a in ipairs(M.actions) do
    k = k - (self.weights[a.name] or a.weight)
    if k <= 0 then return a end
  end
end

-- The unit of the strings that fill memory: string.rep copies its unit once
-- per repetition, and one byte at a time is slow.
local KB = string.rep("x", 1024)

-- pcall(fn) with the Lua state's memory full but for slack bytes, so that
-- what fn allocates fails at some point; the memory comes back after.
local function squeezed(fn, slack)
  local hog, size, n = {}, 1 << 20, 0
  local function fill() hog[n] = size >= 1024 and string.rep(KB, size // 1024) or string.rep("x", size) end
  while size >= 64 do
    n = n + 1
    if not pcall(fill) then size = size // 8 end
  end
  while slack > 0 and n > 0 do -- the last are the smallest
    slack = slack - #(hog[n] or "")
    hog[n], n = nil, n - 1
  end
  collectgarbage()
  local ok, res = pcall(fn)
  hog = nil
  collectgarbage()
  return ok, res
end

-- One random action on s, checked. Returns its name and whether it succeeded.
function M:act(s)
  local a = self:pick_action()
  local what, fn, want, on_ok, on_err = a.make(self, s)
  local slack = self.squeeze and self:chance(self.squeeze) and self:int(0, 1 << 16)
  if slack then what = what .. string.format(" (with %d bytes of memory free)", slack) end
  self:note(what)
  if a.name == "step" then self.steps = self.steps + 1 end
  local before = setup(s)
  local ok, res
  if slack then ok, res = squeezed(fn, slack) else ok, res = pcall(fn) end
  -- Lua's allocator refuses with "not enough memory", the C memory a
  -- result would hold with the memory cap's message
  if slack and (res == "not enough memory" or tostring(res):find("memory cap of", 1, true)) then want = nil end
  local c = self.counts[a.name] or {0, 0}
  c[ok and 1 or 2] = c[ok and 1 or 2] + 1
  self.counts[a.name] = c
  if not ok then
    self:check(type(res) == "string" and res:find("%S") ~= nil, what .. ": the error is not a message: " .. show(res))
    self:check(want ~= "ok", what .. ": refused: " .. res)
    self:check(setup(s) == before, what .. ": refused, but the strategy went from " .. before .. " to " .. setup(s))
    if on_err then on_err(res) end
    if a.name == "step" then self.must_step = false end
  else
    self:check(want ~= "err", what .. ": accepted")
    if on_ok then on_ok(res) end
    if a.name == "step" then self.must_step = true elseif not a.tuning then self.must_step = false end
  end
  return a.name, ok
end

return M
