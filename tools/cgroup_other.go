//go:build !linux

package tools

import "errors"

// cgroups is where commands' cgroups are made: nowhere but on Linux.
type cgroups struct {
	version      int
	pids, memory string
}

func detectCgroups() (cgroups, error) { return cgroups{}, errors.New("cgroups are Linux's") }

// cgroup is never made here.
type cgroup struct{}

func (c cgroups) create(Limits) (*cgroup, error) { return nil, errors.New("cgroups are Linux's") }
func (g *cgroup) enter(int) error                { return nil }
func (g *cgroup) breach(Limits) *limitBreach     { return nil }
func (g *cgroup) kill()                          {}
func (g *cgroup) remove() error                  { return nil }
