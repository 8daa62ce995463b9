//go:build !linux

package report

import "errors"

// exchange is not available: Commit renames the old directory aside.
func exchange(a, b string) error { return errors.New("no atomic exchange") }
