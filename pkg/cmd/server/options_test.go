package server

import (
	"io"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"cluster mode needs etcd", nil, "--etcd-servers is required"},
		{"cluster mode", []string{"--etcd-servers=http://127.0.0.1:2379"}, ""},
		{"local mode needs a data dir", []string{"--local"}, "--data-dir is required"},
		{"local mode", []string{"--local", "--data-dir=/tmp/x"}, ""},
		{"local mode embeds etcd", []string{"--local", "--data-dir=/tmp/x", "--etcd-servers=http://127.0.0.1:2379"}, "exclusive"},
		{"local mode is loopback only", []string{"--local", "--data-dir=/tmp/x", "--authorization-kubeconfig=/k"}, "cluster-mode flag"},
		{"no-fsync needs local", []string{"--etcd-servers=http://e:2379", "--local-etcd-unsafe-no-fsync"}, "needs --local"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOptions(io.Discard)
			cmd := NewCommand(t.Context(), o)
			if err := cmd.Flags().Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			if err := o.Complete(); err != nil {
				t.Fatal(err)
			}
			err := o.Validate()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("error %v, want one containing %q", err, tc.wantErr)
			}
			if tc.wantErr == "" && o.Local.Enabled && !o.RecommendedOptions.SecureServing.BindAddress.IsLoopback() {
				t.Errorf("local mode binds %s", o.RecommendedOptions.SecureServing.BindAddress)
			}
		})
	}
}
