-- temp: TEMP's topology-aware choice, TATP first on tiles. Tries every
-- square-ish TATP grid of a power-of-two size that fits the mesh, with DP over
-- the units left, and keeps the fastest step among those whose memory fits
-- (or the smallest memory when none fits). The two-level search
-- (`wafertop search`) explores the whole space; this is its quick stand-in.
return function(layout, model)
  local best, best_key
  local n = 1
  while n <= layout.live_units do
    local ok, r = pcall(wt.eval, {layout = layout, model = model, strategy = {tatp = n}})
    if ok then
      -- a fitting candidate beats any that does not; then step time, else memory
      local key = {r.memory.fits and 0 or 1, r.memory.fits and r.step_time_s or r.memory.total}
      if not best_key or key[1] < best_key[1] or (key[1] == best_key[1] and key[2] < best_key[2]) then
        best, best_key = n, key
      end
    end
    n = n * 2
  end
  return {tatp = best or 1, placement = "tiles"}
end
