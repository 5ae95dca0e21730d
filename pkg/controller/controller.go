// Package controller assembles the embedded controllers. Each kind's controller lives in its own package;
// the manager package runs them.
package controller

import (
	"fmt"

	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
)

// Register adds every controller to the manager.
func Register(m *manager.Manager) error {
	for name, register := range map[string]func(*manager.Manager) error{
		"runtime configs": runtimeconfig.Register,
	} {
		if err := register(m); err != nil {
			return fmt.Errorf("registering the %s controller: %w", name, err)
		}
	}
	return nil
}
