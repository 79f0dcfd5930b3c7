-- temp: TEMP's topology-aware choice, the best strategy the search finds.
-- The two-level search (wafertop search) over the whole 5-D space with TATP,
-- on the model's own micro-batch, timed with the command's network model,
-- and its best strategy with every option it chose. A layout where nothing fits (or the search fails) falls back
-- to the largest TATP grid, which needs the least memory.
return function(layout, model, opts)
  local ok, s = pcall(wt.search, {layout = layout, model = model, net = opts.net, top = 1, baselines = false,
                                   fix = "microbatch=" .. model.microbatch})
  if not ok or not s.fits then
    return {tatp = layout.live_units, placement = "tiles"}
  end
  local b = s.best.strategy
  return {text = b.text, tatp_grid = b.tatp_grid, placement = b.placement, collective = b.collective,
          checkpoint = b.checkpoint, mem = b.mem, chunk = b.chunk}
end
