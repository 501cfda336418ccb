package auth_test

import (
	"context"
	"fmt"
	"time"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/storage/memory"
)

// A host creates a brand and a user in-process, the user logs in, and each
// later request is authenticated by its key.
func Example() {
	ctx := context.Background()
	store, err := memory.New(ctx)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	svc := auth.NewService(store)

	brand, err := svc.CreateBrand(ctx, auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
	if err != nil {
		panic(err)
	}
	_, err = svc.CreateUser(ctx, brand.ID, auth.NewUser{
		Username: "alice", EmailAddress: "alice@shop.example.com", Password: "correct horse battery",
		Permissions: []auth.Permission{auth.PermAnalyticsWrite},
	})
	if err != nil {
		panic(err)
	}

	sess, err := svc.Login(ctx, brand, auth.LoginRequest{EmailAddress: "Alice@Shop.Example.com", Password: "correct horse battery"})
	if err != nil {
		panic(err)
	}
	p, err := svc.Authenticate(ctx, brand, sess.AuthKey)
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Username, p.Can(auth.PermAnalyticsWrite), p.Can(auth.PermPaymentGatewayWrite))

	_, err = svc.Login(ctx, brand, auth.LoginRequest{Username: "alice", Password: "wrong"})
	fmt.Println(envelope.CodeOf(err))

	_ = svc.Logout(ctx, p)
	_, err = svc.Authenticate(ctx, brand, sess.AuthKey)
	fmt.Println(envelope.CodeOf(err))
	// Output:
	// alice true false
	// invalid_credentials
	// unauthenticated
}

// A refresh key works once: the second use revokes every key of the login.
func ExampleService_Refresh() {
	ctx := context.Background()
	store, _ := memory.New(ctx)
	defer store.Close()
	now := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	svc := auth.NewService(store, auth.WithClock(func() time.Time { return now }))
	brand, _ := svc.CreateBrand(ctx, auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
	_, _ = svc.CreateUser(ctx, brand.ID, auth.NewUser{Username: "alice", Password: "correct horse battery"})
	first, _ := svc.Login(ctx, brand, auth.LoginRequest{Username: "alice", Password: "correct horse battery"})

	second, err := svc.Refresh(ctx, brand, auth.RefreshRequest{RefreshAuthKey: first.RefreshAuthKey})
	fmt.Println(err == nil)
	// A second tab sends the same key at once: another working pair, and
	// the first refresh's pair keeps working.
	third, err := svc.Refresh(ctx, brand, auth.RefreshRequest{RefreshAuthKey: first.RefreshAuthKey})
	fmt.Println(err == nil)
	_, err = svc.Authenticate(ctx, brand, second.AuthKey)
	fmt.Println(err == nil)
	// Sent again past the reuse interval, it is taken for a stolen key:
	// every pair of the login is revoked.
	now = now.Add(auth.DefaultRefreshReuseInterval)
	_, err = svc.Refresh(ctx, brand, auth.RefreshRequest{RefreshAuthKey: first.RefreshAuthKey})
	fmt.Println(envelope.CodeOf(err))
	_, err = svc.Authenticate(ctx, brand, third.AuthKey)
	fmt.Println(envelope.CodeOf(err))
	// Output:
	// true
	// true
	// true
	// unauthenticated
	// unauthenticated
}
