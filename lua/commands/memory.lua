-- memory: what the fullest unit holds, part by part, against its capacity.
local args = require "args"
local fmt = require "fmt"

wt.command("memory", function(words, ctx)
  args.parse(words, "memory", {})
  local m = ctx.result:memory()
  -- a column of what lives in DRAM once anything does (eval's memory.dram_*)
  local far = m.dram > 0
  local rows = {{"part", "bytes", "share", far and "in DRAM" or nil}}
  for _, part in ipairs({"params", "grads", "optimizer", "activations", "buffers"}) do
    rows[#rows + 1] = {part, fmt.bytes(m[part]), fmt.pct(m.total > 0 and m[part] / m.total or 0),
      far and fmt.bytes(m["dram_" .. part]) or nil}
  end
  rows[#rows + 1] = {"total", fmt.bytes(m.total), fmt.pct(m.capacity > 0 and m.total / m.capacity or 0) .. " of capacity"}
  wt.print(string.format("fullest unit: %s of %s, %s", fmt.bytes(m.total), fmt.bytes(m.capacity),
    m.fits and "fits" or "does NOT fit"))
  fmt.table(rows, wt.print)
  wt.print(string.format("activations: %s per layer and micro-batch", fmt.bytes(m.activations_per_layer)))
end, [[memory
  the fullest unit's memory by part against its capacity, and what lives in DRAM]])
