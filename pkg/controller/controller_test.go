package controller

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"

	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
)

// TestNoClusterWideCacheOfWhatTheControllersDoNotManage: of the Kubernetes kinds, only Nodes are cached
// cluster-wide; Pods, Jobs, PVCs, HPAs, ServiceAccounts and RoleBindings go through selections.
func TestNoClusterWideCacheOfWhatTheControllersDoNotManage(t *testing.T) {
	// Registration asks discovery whether KServe and Gateway API are served: this server serves nothing.
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	cfg := &rest.Config{Host: srv.URL}
	o := DefaultOptions()
	o.Manager.LeaderElect = false
	m, err := manager.New(cfg, cfg, o.Manager)
	if err != nil {
		t.Fatal(err)
	}
	if err := Register(m, o); err != nil {
		t.Fatal(err)
	}
	// Started with a closed channel, the factory marks its informers started and lists them in
	// WaitForCacheSync without syncing any.
	stopped := make(chan struct{})
	close(stopped)
	m.KubeInformers.Start(stopped)
	var kinds []reflect.Type
	for typ := range m.KubeInformers.WaitForCacheSync(stopped) {
		kinds = append(kinds, typ)
	}
	if want := []reflect.Type{reflect.TypeOf(&corev1.Node{})}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("cluster-wide informers on %v, want only %v", kinds, want)
	}
}
