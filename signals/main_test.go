package signals_test

import (
	"testing"

	"github.com/planmode/planmode/testsuite"
)

// TestMain shares one dev server between the tests that need one.
func TestMain(m *testing.M) { testsuite.Main(m) }
