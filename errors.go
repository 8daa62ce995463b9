package schedsim

import (
	"errors"
	"fmt"
)

// InputError is an error in a run's input or description: a malformed
// trace or configuration file, an unknown option value, a combination the
// semantics refuse. The message says what to fix; the command line exits
// with status 2 on it. Errors outside the input (a full disk) are not
// InputErrors.
type InputError struct{ Err error }

// Error returns the message of the wrapped error.
func (e *InputError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *InputError) Unwrap() error { return e.Err }

// inputf returns an *InputError with a formatted message.
func inputf(format string, a ...any) error { return &InputError{fmt.Errorf(format, a...)} }

// ErrInterrupted stops a run whose context was cancelled (the command line
// cancels it on SIGINT or SIGTERM); no output is written.
var ErrInterrupted = errors.New("interrupted (SIGINT or SIGTERM): stopped, no output written")
