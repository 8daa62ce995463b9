package simtest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// parseConstraint adds a reservation, window or limit line's rule to c.
func parseConstraint(c *sim.Constraints, fs []string) error {
	num := func(s string) (int, error) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%q: want a whole number ≥ 0", s)
		}
		return n, nil
	}
	list := func(s string) ([]int, error) {
		var out []int
		for _, f := range strings.Split(s, ",") {
			n, err := num(f)
			if err != nil {
				return nil, err
			}
			out = append(out, n)
		}
		return out, nil
	}
	kvs := func(fs []string, set func(k, v string) error) error {
		for _, kv := range fs {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return fmt.Errorf("%q: want key=value", kv)
			}
			if err := set(k, v); err != nil {
				return fmt.Errorf("%s: %v", k, err)
			}
		}
		return nil
	}
	switch fs[0] {
	case "reservation":
		if len(fs) < 4 {
			return fmt.Errorf("want reservation NAME START DURATION [key=value…]")
		}
		r := sim.Reservation{Name: fs[1], Until: workload.Forever}
		start, err := num(fs[2])
		if err != nil {
			return err
		}
		dur, err := num(fs[3])
		if err != nil {
			return err
		}
		r.Start, r.Duration = workload.Time(start), workload.Time(dur)
		err = kvs(fs[4:], func(k, v string) (err error) {
			var n int
			switch k {
			case "recur":
				r.Recur, err = sim.ParseRecur(v)
			case "until":
				n, err = num(v)
				r.Until = workload.Time(n)
			case "procs":
				r.Procs, err = num(v)
			case "users":
				r.Users, err = list(v)
			case "accounts":
				r.Accounts, err = list(v)
			case "partitions":
				r.Partitions, err = list(v)
			default:
				err = fmt.Errorf("unknown key")
			}
			return err
		})
		r.Maint = len(r.Users)+len(r.Accounts)+len(r.Partitions) == 0
		c.Reservations = append(c.Reservations, r)
		return err
	case "window":
		if len(fs) < 4 {
			return fmt.Errorf("want window DAYS FROM-TO MAXWALL [key=value…]")
		}
		w := sim.StartWindow{Partition: -1, Queue: -1}
		var err error
		if w.Days, err = sim.ParseDays(fs[1]); err != nil {
			return err
		}
		if w.From, w.To, err = sim.ParseHours(fs[2]); err != nil {
			return err
		}
		mw, err := num(fs[3])
		if err != nil {
			return err
		}
		w.MaxWall = workload.Time(mw)
		err = kvs(fs[4:], func(k, v string) (err error) {
			switch k {
			case "partition":
				w.Partition, err = num(v)
			case "queue":
				w.Queue, err = num(v)
			default:
				err = fmt.Errorf("unknown key")
			}
			return err
		})
		c.Windows = append(c.Windows, w)
		return err
	case "limit":
		var l sim.Limit
		err := kvs(fs[1:], func(k, v string) (err error) {
			var n int
			switch k {
			case "users":
				if v == "*" {
					l.AllUsers = true
				} else {
					l.Users, err = list(v)
				}
			case "accounts":
				l.Accounts, err = list(v)
			case "max_jobs":
				l.MaxJobsPerUser, err = num(v)
			case "max_submit":
				l.MaxSubmitPerUser, err = num(v)
			case "max_cpus":
				l.MaxCPUsPerUser, err = num(v)
			case "grp_cpus":
				l.GrpCPUs, err = num(v)
			case "max_wall":
				n, err = num(v)
				l.MaxWall = workload.Time(n)
			case "assoc_max_jobs":
				l.MaxJobs, err = num(v)
			case "assoc_max_submit":
				l.MaxSubmitJobs, err = num(v)
			case "assoc_max_cpus":
				l.MaxCPUs, err = num(v)
			default:
				err = fmt.Errorf("unknown key")
			}
			return err
		})
		c.Limits = append(c.Limits, l)
		return err
	}
	return fmt.Errorf("unknown statement %q", fs[0])
}
