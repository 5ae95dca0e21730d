package manager

import (
	"fmt"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeinformers "k8s.io/client-go/informers"
)

// Selection names the Kubernetes objects of interest to a controller by label and field selectors, as a list
// request would (either may be empty). Informers through Selected cache only those, so the cache grows with
// what the controllers manage, not with the cluster: a cluster of 100,000 Pods has a few dozen the
// controllers look at.
type Selection struct {
	Labels, Fields string
}

func (s Selection) String() string {
	return fmt.Sprintf("labels %q, fields %q", s.Labels, s.Fields)
}

// Selected is the informer factory of the objects sel selects. Controllers that ask for the same selection
// share its factory and so its informers (the template controller and the orphan sweep both inform on
// discovery Jobs); Run starts every factory handed out and waits for it to sync. Nodes and other kinds the
// controllers read cluster-wide stay in KubeInformers.
// It is meant for registration, before Run.
func (m *Manager) Selected(sel Selection) kubeinformers.SharedInformerFactory {
	if f, ok := m.selected[sel]; ok {
		return f
	}
	f := kubeinformers.NewSharedInformerFactoryWithOptions(m.Kube, m.Options.ResyncPeriod, kubeinformers.WithTransform(stripManagedFields),
		kubeinformers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.LabelSelector, o.FieldSelector = sel.Labels, sel.Fields
		}))
	if m.selected == nil {
		m.selected = map[Selection]kubeinformers.SharedInformerFactory{}
	}
	m.selected[sel] = f
	return f
}

// selections are the factories Selected handed out, in a fixed order (for logs).
func (m *Manager) selections() []Selection {
	out := make([]Selection, 0, len(m.selected))
	for s := range m.selected {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}
