package etcdmaintenance

import (
	"bytes"
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Restored counts what Restore did with each key of a snapshot.
type Restored struct {
	// Written are keys that were missing and now hold the snapshot's value.
	Written int
	// Unchanged are keys that hold the snapshot's value already.
	Unchanged int
	// Differ are keys that exist with another value: left as they are (the live value is newer than a backup).
	Differ []string
	// Leased are keys bound to a lease (short-lived by design), not restored.
	Leased int
}

// Restore writes every key of the snapshot content that the etcd lacks, with its stored value as it is (encoded,
// compressed or encrypted as the server wrote it), so objects come back with their UIDs, owner references,
// finalizers and status. Keys that exist are never overwritten. Each write is a transaction that puts only if
// the key is still absent, so a server that writes at the same time is not overwritten either (though the
// restore is meant to run while aim-apiserver is stopped: see docs/operations.md).
func Restore(ctx context.Context, kv clientv3.KV, content *Content, dryRun bool) (*Restored, error) {
	r := &Restored{}
	for _, want := range content.KVs {
		if want.Lease != 0 {
			r.Leased++
			continue
		}
		key := string(want.Key)
		// One round trip a key: put it if absent, else read what is there.
		put := clientv3.OpPut(key, string(want.Value))
		if dryRun {
			put = clientv3.OpGet(key, clientv3.WithCountOnly())
		}
		resp, err := kv.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
			Then(put).
			Else(clientv3.OpGet(key)).
			Commit()
		if err != nil {
			return r, fmt.Errorf("restoring %s: %w", key, err)
		}
		if resp.Succeeded {
			r.Written++
			continue
		}
		if got := resp.Responses[0].GetResponseRange().Kvs; len(got) > 0 && bytes.Equal(got[0].Value, want.Value) {
			r.Unchanged++
		} else {
			r.Differ = append(r.Differ, key)
		}
	}
	return r, nil
}
