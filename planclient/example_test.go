package planclient_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// A service starts a plan, reads its options in the same round trip,
// selects the recommended one and waits for the result.
func ExampleClient() {
	ctx := context.Background()
	tc, err := client.Dial(client.Options{HostPort: "127.0.0.1:7233"})
	if err != nil {
		log.Fatal(err)
	}
	defer tc.Close()
	pc := planclient.New(tc)

	opts, err := pc.StartAndGetOptions(ctx, "plan-shop-jwt", signals.StartRequest{
		Goal:      "Add JWT authentication",
		Selection: signals.SelectionPolicy{Timeout: plan.Duration(24 * time.Hour)},
	})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := pc.Select(ctx, "plan-shop-jwt", signals.SelectOptionRequest{OptionID: opts.RecommendedID}); err != nil {
		log.Fatal(err) // an unknown option or a wrong phase is refused here
	}
	res, err := pc.Result(ctx, "plan-shop-jwt")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Status, res.Metrics.StepsCompleted)
}
