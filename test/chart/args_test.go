//go:build chart

package chart

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/aim-apiserver/aim-apiserver/pkg/cmd/app"
)

// TestChartArgsAreTheBinarysFlags: every container the chart runs from aim-apiserver's image (the server, its
// etcd-certs init container, the etcd snapshot and defrag CronJobs), under each of these values, passes
// arguments the binary's own command tree accepts. The other chart tests compare arguments with lists of their
// own; a flag renamed in the binary but not in the chart would pass them and fail in the cluster, at start.
func TestChartArgsAreTheBinarysFlags(t *testing.T) {
	for _, tc := range []struct {
		name       string
		values     []string
		containers int // of aim-apiserver's image: the server, the etcd-certs init container, two CronJobs
	}{
		{"defaults", nil, 4},
		{"cert-manager", []string{"--set", "servingCert.mode=certManager", "--set", "etcd.certs.mode=certManager"}, 3},
		{"external etcd", []string{"--set", "etcd.mode=external", "--set", "etcd.external.endpoints={https://etcd-0.example:2379}",
			"--set", "etcd.external.clientSecret=my-etcd-client"}, 1},
		{"snapshots to a bucket", []string{"--set", "etcd.backup.s3.bucket=backups", "--set", "etcd.backup.s3.prefix=aim/prod"}, 4},
		{"runtime config, mirrors, CAs and proxy", []string{"--set", "defaultRuntimeConfig.enabled=true",
			"--set-json", `registryMirrors={"registries":{"docker.io":{"mirrors":[{"endpoint":"https://mirror.example"}]}}}`,
			"--set", "extraCACertificates.configMap=corp-cas", "--set", "proxy.httpsProxy=http://proxy.example:3128"}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ran := 0
			for _, o := range helmTemplate(t, tc.values...) {
				for _, c := range aimContainers(o) {
					ran++
					args := c.args
					if len(c.command) > 0 { // the binary itself, then the subcommand
						args = append(c.command[1:len(c.command):len(c.command)], c.args...)
					}
					root := app.NewCommand(context.Background(), io.Discard)
					cmd, rest, err := root.Find(args)
					if err == nil {
						err = cmd.ParseFlags(rest)
					}
					if err == nil {
						err = cmd.ValidateArgs(cmd.Flags().Args())
					}
					if err != nil {
						t.Errorf("%s, container %s: aim-apiserver %s: %v", key(o), c.name, strings.Join(args, " "), err)
					}
				}
			}
			if ran != tc.containers {
				t.Errorf("%d containers run aim-apiserver's image, want %d", ran, tc.containers)
			}
		})
	}
}

type aimContainer struct {
	name          string
	command, args []string
}

// aimContainers are the containers and init containers of a workload that run aim-apiserver's image.
func aimContainers(o object) []aimContainer {
	spec := field(o, "spec", "template", "spec")
	if o["kind"] == "CronJob" {
		spec = field(o, "spec", "jobTemplate", "spec", "template", "spec")
	}
	pod, _ := spec.(map[string]any)
	var out []aimContainer
	for _, list := range []string{"initContainers", "containers"} {
		cs, _ := pod[list].([]any)
		for _, c := range cs {
			m := c.(map[string]any)
			if image, _ := m["image"].(string); !strings.Contains(image, "/aim-apiserver:") && !strings.Contains(image, "/aim-apiserver@") {
				continue
			}
			out = append(out, aimContainer{name: m["name"].(string), command: stringList(m["command"]), args: stringList(m["args"])})
		}
	}
	return out
}

// stringList is a rendered list of strings (a container's command or args).
func stringList(v any) []string {
	raw, _ := v.([]any)
	var out []string
	for _, a := range raw {
		out = append(out, a.(string))
	}
	return out
}
