package sim

// SkippedPasses returns the passes e skipped, among its Stats.Passes: the
// tests of the skipping rules check that they skip.
func SkippedPasses(e *Engine) int64 { return e.skipped }

// SlowLimits makes the engines of cfg walk the whole queue under limits
// (the path before the owners' index): the tests compare both.
func SlowLimits(cfg *Config) { cfg.slowLimits = true }
