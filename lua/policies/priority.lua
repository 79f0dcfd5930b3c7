-- priority: the critical path first. On the fluid timeline the gradient
-- buckets run beside the last backward and, at equal levels, share links
-- with it fairly, which slows the backward that the last bucket waits for.
-- The backward phases whose links the buckets also load get level 1 over
-- the DP all-reduce's 0; kept only if the step gets faster.
--
-- Helps: DP and the backward on the same links, e.g. on layouts/default.yaml
--   wafertop tune --net fluid --policy priority --strategy DP16,TATP16 \
--     --model tests/fixtures/models/policy-wide.yaml
-- (the step drops from 0.691041 ms to 0.686322 ms). It cannot help where
-- they use other links (tests/fixtures/layouts/column.yaml, DP16,TATP4x1:
-- nothing to share), nor under --net bottleneck, whose closed form serves
-- the backward first already.
local trial = require "trial"
local contention = require "contention"

local t = trial.new(function(r) return r.step_time_s end)

-- The backward phases that load a link the DP all-reduce loads.
local function colliding(r)
  local dp, out = contention.links_of(r, "dp.allreduce"), {}
  for _, p in ipairs(r:phases()) do
    if p.name:sub(1, 4) == "bwd." then
      for k in pairs(contention.links_of(r, p.name)) do
        if dp[k] then
          out[#out + 1] = p.name
          break
        end
      end
    end
  end
  return out
end

wt.policy("priority", {
  help = "serves the backward before the gradient buckets on the links they share",
  on_step = function(session, r)
    if t:judge(r, session) ~= "ready" or t:was_tried("critical") or r.dp_exposed_s <= 0 then return end
    local first = colliding(r)
    if #first == 0 then return end
    t:try(session, "critical", function(s) for _, name in ipairs(first) do s:set_priority(name, 1) end end,
      function(s) for _, name in ipairs(first) do s:set_priority(name, nil) end end)
  end,
})
