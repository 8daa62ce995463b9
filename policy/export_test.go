package policy

// NoPlanBound makes c plan every job of a pass that plans anew from now,
// without the bounds the jobs planned before it give (planBounds): the
// tests compare both.
func NoPlanBound(c *Conservative) { c.noBound = true }
