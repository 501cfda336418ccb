package ratelimit_test

import (
	"context"
	"fmt"
	"time"

	"github.com/brandbase/brandbase/ratelimit"
)

// A login policy of 10 attempts per minute: the eleventh attempt at once is
// refused and told to come back when the next token is in, 6 s later.
func ExampleLimiter_Allow() {
	l := ratelimit.New(ratelimit.Config{})
	p := ratelimit.Policy{Name: "login", Limit: 10, Per: time.Minute}
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for range 10 {
		_, _ = l.Allow(context.Background(), "shop.example.com alice", p, now)
	}
	d, err := l.Allow(context.Background(), "shop.example.com alice", p, now)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("allowed=%v remaining=%d retry after %v, full again in %v\n", d.Allowed, d.Remaining, d.RetryAfter, d.Reset)

	d, _ = l.Allow(context.Background(), "shop.example.com alice", p, now.Add(6*time.Second))
	fmt.Printf("6 s later: allowed=%v\n", d.Allowed)
	// Output:
	// allowed=false remaining=0 retry after 6s, full again in 1m0s
	// 6 s later: allowed=true
}
