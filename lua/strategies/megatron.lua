-- megatron: Megatron-LM's tensor parallelism, ranks placed row by row.
-- As a GPU cluster would run it: TP across the largest group the heads allow
-- (a divisor of heads, kv_heads and ffn that fits the live units), ranks
-- placed row by row (linear), DP over the units left. The baseline that
-- chokes a mesh.
return function(layout, model)
  local tp = 1
  for t = 1, math.min(model.heads, layout.live_units) do
    if model.heads % t == 0 and model.kv_heads % t == 0 and model.ffn % t == 0
        and model.seq % t == 0 then
      tp = t
    end
  end
  return {tp = tp, placement = "linear"}
end
