package controller

import (
	"errors"
	"time"
)

// Result tells the controller what to do with a key after Reconcile
// returned without error.
type Result struct {
	// RequeueAfter reconciles the key again after this long; the
	// rate limiter's history of the key is forgotten.
	RequeueAfter time.Duration
	// Requeue reconciles the key again after the rate limiter's backoff.
	Requeue bool
}

// permanentError is an error that retrying cannot fix.
type permanentError struct{ err error }

func (e permanentError) Error() string { return e.err.Error() }
func (e permanentError) Unwrap() error { return e.err }

// Permanent marks err as one that a retry cannot fix: the controller
// reports it and does not requeue the key. It returns nil for nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanentError{err}
}

// IsPermanent reports whether err, or an error it wraps, was marked
// Permanent.
func IsPermanent(err error) bool {
	var p permanentError
	return errors.As(err, &p)
}
