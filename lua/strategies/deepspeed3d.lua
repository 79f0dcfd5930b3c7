-- deepspeed3d: DeepSpeed's 3-D parallelism, TP8 x PP4 with DP filling the rest.
-- As DeepSpeed sizes itself on a cluster: TP 8 (a node's GPUs), PP 4, ranks
-- placed row by row, DP over the units left (the most that divides the
-- batch in micro-batches). Where TP x PP does not fit the model or the live
-- units, PP halves first, then TP. The search's deepspeed-3d baseline is
-- sized the same way (engine/search.c), so both grow with the machine.
return function(layout, model)
  local tp, pp = 8, 4
  local function tp_fits()
    return model.heads % tp == 0 and model.kv_heads % tp == 0 and model.ffn % tp == 0
      and model.seq % tp == 0
  end
  while tp * pp > 1 and not (tp_fits() and pp <= model.layers and tp * pp <= layout.live_units) do
    if pp > model.layers or (tp_fits() and pp > 1) then pp = pp // 2 else tp = tp // 2 end
  end
  local dp = math.max(1, layout.live_units // (tp * pp))
  while dp > 1 and model.batch % (dp * model.microbatch) ~= 0 do dp = dp - 1 end
  return {dp = dp, tp = tp, pp = pp, placement = "linear"}
end
