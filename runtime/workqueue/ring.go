package workqueue

const (
	// minRingSize is the smallest backing array a ring allocates.
	minRingSize = 16
	// keptRingSize is the size up to which a ring keeps its backing array
	// however empty it gets, so that a queue whose length keeps going up
	// and down does not reallocate all the time.
	keptRingSize = 1024
)

// ring is a FIFO over a power-of-two sized circular buffer. Popped slots are
// zeroed so the ring does not keep items alive, and a buffer larger than
// keptRingSize shrinks again once it is mostly empty, so a burst does not pin
// memory forever.
type ring[T any] struct {
	buf  []T
	head int // index of the oldest element
	n    int // number of elements
}

func (r *ring[T]) len() int { return r.n }

func (r *ring[T]) push(v T) {
	if r.n == len(r.buf) {
		r.resize(max(2*len(r.buf), minRingSize))
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = v
	r.n++
}

// pop removes and returns the oldest element. The ring must not be empty.
func (r *ring[T]) pop() T {
	v := r.buf[r.head]
	var zero T
	r.buf[r.head] = zero
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
	if len(r.buf) > keptRingSize && r.n < len(r.buf)/8 {
		r.resize(len(r.buf) / 2)
	}
	return v
}

// resize moves the elements, oldest first, into a new buffer of the given
// power-of-two size, which must be able to hold them.
func (r *ring[T]) resize(size int) {
	buf := make([]T, size)
	if r.n > 0 {
		end := r.head + r.n
		if end <= len(r.buf) {
			copy(buf, r.buf[r.head:end])
		} else {
			k := copy(buf, r.buf[r.head:])
			copy(buf[k:], r.buf[:end-len(r.buf)])
		}
	}
	r.buf = buf
	r.head = 0
}
