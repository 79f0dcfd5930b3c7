-- deepspeed3d: DeepSpeed's 3-D parallelism DP8,TP8,PP4, shrunk until it fits.
-- (DP, TP, SP, PP, TATP) = (8, 8, 1, 4, 1), placed row by row. Where that
-- does not fit the live units, the model or the batch, DP halves first, then
-- PP, then TP, until it does.
return function(layout, model)
  local dp, tp, pp = 8, 8, 4
  local function fits()
    return dp * tp * pp <= layout.live_units
      and model.heads % tp == 0 and model.kv_heads % tp == 0 and model.ffn % tp == 0
      and model.seq % tp == 0 and pp <= model.layers
      and model.batch % (dp * model.microbatch) == 0
  end
  while not fits() do
    if dp > 1 then dp = dp // 2
    elseif pp > 1 then pp = pp // 2
    elseif tp > 1 then tp = tp // 2
    else break end
  end
  return {dp = dp, tp = tp, pp = pp, placement = "linear"}
end
