package sim

// SkippedPasses returns the passes e skipped, among its Stats.Passes: the
// tests of the skipping rules check that they skip.
func SkippedPasses(e *Engine) int64 { return e.skipped }
