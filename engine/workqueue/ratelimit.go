package workqueue

import "time"

// The rate limiters' parameters. The classic queue's limiter is client-go's
// DefaultControllerRateLimiter (the exponential and the bucket, whichever
// waits longer); the priority queue's is the exponential alone, as
// controller-runtime's controller.NewTypedUnmanaged gives it when
// UsePriorityQueue is on (the default since v0.23).
const (
	// BaseDelay is the first wait of a failing key; each further failure
	// doubles it (ItemExponentialFailureRateLimiter).
	BaseDelay = 5 * time.Millisecond
	// MaxDelay caps a failing key's wait.
	MaxDelay = 1000 * time.Second
	// BucketQPS is how many rate-limited adds per second the shared token
	// bucket allows in the long run (BucketRateLimiter).
	BucketQPS = 10
	// BucketBurst is how many it allows at once, from a full bucket.
	BucketBurst = 100
	// MaxRequeues bounds a key's failure count; NumRequeues stops there.
	MaxRequeues = 1 << 20
)

// tokenCost is the refill time of one token: 100 ms at 10 per second.
const tokenCost = time.Second / BucketQPS

// bucketFull is a full bucket's credit: BucketBurst tokens.
const bucketFull = BucketBurst * tokenCost

// The limiters' kinds, as the page names them.
const (
	// LimiterItemExponential is ItemExponentialFailureRateLimiter alone:
	// the priority queue's default.
	LimiterItemExponential = "item-exponential"
	// LimiterMaxOf is MaxOfRateLimiter(ItemExponentialFailureRateLimiter,
	// BucketRateLimiter): client-go's DefaultControllerRateLimiter, the
	// classic queue's.
	LimiterMaxOf = "max-of"
)

// limiter is the per-key exponential limiter, and with bucket the max of it
// and the shared bucket. The bucket is kept as credit in refill time (100 ms
// a token), which is golang.org/x/time/rate's token count times the token
// cost, in integers so that virtual time stays exact.
type limiter struct {
	// bucket: the shared token bucket takes part (max-of); without it the
	// credit stays zero and unused.
	bucket bool
	// failures counts each key's failures since it was last Forgotten; keys
	// without failures are absent.
	failures map[string]int
	// credit is the bucket's tokens times tokenCost as of last; negative
	// when reservations ran ahead of the refill (reserve semantics). It
	// never exceeds bucketFull nor falls below -MaxDelay.
	credit time.Duration
	last   time.Duration
}

func newLimiter(bucket bool) limiter {
	l := limiter{bucket: bucket, failures: map[string]int{}}
	if bucket {
		l.credit = bucketFull
	}
	return l
}

// when counts one failure for key and returns how long it should wait.
func (l *limiter) when(key string, now time.Duration) time.Duration {
	exp := l.failures[key]
	l.failures[key] = min(exp+1, MaxRequeues)
	if !l.bucket {
		return backoff(exp)
	}
	return max(backoff(exp), l.reserve(now))
}

// next is what when would return for key now, without counting a failure
// or taking a token.
func (l *limiter) next(key string, now time.Duration) time.Duration {
	d := backoff(l.failures[key])
	if l.bucket {
		d = max(d, min(tokenCost-l.creditAt(now), MaxDelay))
	}
	return d
}

func (l *limiter) kind() string {
	if l.bucket {
		return LimiterMaxOf
	}
	return LimiterItemExponential
}

// backoff is BaseDelay·2^exp, capped at MaxDelay.
func backoff(exp int) time.Duration {
	// 5 ms·2^18 is already past the cap; stop doubling before overflow.
	if exp >= 18 {
		return MaxDelay
	}
	return min(BaseDelay<<exp, MaxDelay)
}

// reserve takes one token, as rate.Limiter.Reserve does, and returns how long
// the caller must wait for it: zero while tokens remain.
func (l *limiter) reserve(now time.Duration) time.Duration {
	l.credit = l.creditAt(now)
	l.last = now
	l.credit = max(l.credit-tokenCost, -MaxDelay)
	if l.credit < 0 {
		return -l.credit
	}
	return 0
}

// creditAt is the bucket's credit at now: refilled since last, at most full.
func (l *limiter) creditAt(now time.Duration) time.Duration {
	return min(l.credit+(now-l.last), bucketFull)
}
