-- Frame target and default batch knobs clamp and take effect.
local w = pmacs.workers

assert(w.frame_target_ms() == 16, "default frame target")
w.set_frame_target_ms(5)
assert(w.frame_target_ms() == 5)
w.set_frame_target_ms(0)
assert(w.frame_target_ms() == 1, "clamped to 1")
w.set_frame_target_ms(100000)
assert(w.frame_target_ms() == 1000, "clamped to 1000")
w.set_frame_target_ms(16)

assert(w.default_max_batch() == 1024, "default batch")
w.set_default_max_batch(0)
assert(w.default_max_batch() == 1, "clamped to 1")
w.set_default_max_batch(1e12)
assert(w.default_max_batch() == 1000000, "clamped to 1e6")
w.set_default_max_batch(10)
local h = w.emit_n(100)
local n = 0
for batch in h:batches() do
  assert(#batch <= 10, "the default batch applies, got " .. #batch)
  n = n + #batch
end
assert(n == 100)
w.set_default_max_batch(1024)
