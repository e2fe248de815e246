// Package parallel runs independent steps on every processor.
package parallel

import (
	"errors"
	"runtime"
	"sync"
)

// For calls f(0) … f(n-1) on up to GOMAXPROCS goroutines and returns
// their errors joined, in index order, once every call has returned.
func For(n int, f func(i int) error) error {
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := range next {
				errs[i] = f(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}
