package policy

// NoPlanBound makes p (conservative backfilling or Slurm's backfill)
// plan every job of a pass from now, without the bounds the jobs planned
// before it give (planBounds), and conservative backfilling plan every
// job at every pass, keeping no plan of the last (keepPlan): the tests
// compare both.
func NoPlanBound(p Policy) {
	switch p := p.(type) {
	case *Conservative:
		p.noBound = true
	case *Slurm:
		p.noBound = true
	default:
		panic("NoPlanBound: not a policy that plans jobs one after another")
	}
}
