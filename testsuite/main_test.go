package testsuite

import "testing"

// TestMain shares one dev server between this package's tests.
func TestMain(m *testing.M) { Main(m) }
