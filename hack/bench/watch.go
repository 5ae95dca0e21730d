package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aim-apiserver/aim-apiserver/hack/bench/measure"
)

// seqMarker precedes the sequence number the benchmark writes into an annotation; a watcher finds it in an
// event's bytes without decoding the object, JSON or protobuf alike.
const seqMarker = "bseq"

func seqValue(seq int) string { return fmt.Sprintf("%s%07d", seqMarker, seq) }

// findSeq returns the sequence number in an event, or -1.
func findSeq(frame []byte) int {
	i := bytes.Index(frame, []byte(seqMarker))
	if i < 0 || i+len(seqMarker)+7 > len(frame) {
		return -1
	}
	n, err := strconv.Atoi(string(frame[i+len(seqMarker) : i+len(seqMarker)+7]))
	if err != nil {
		return -1
	}
	return n
}

// frameReader splits a watch stream into events: newline-delimited JSON, or length-prefixed protobuf frames.
type frameReader struct {
	r        *bufio.Reader
	protobuf bool
	buf      []byte
}

func (f *frameReader) next() ([]byte, error) {
	if !f.protobuf {
		return f.r.ReadSlice('\n')
	}
	var size [4]byte
	if _, err := io.ReadFull(f.r, size[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(size[:])
	if cap(f.buf) < int(n) {
		f.buf = make([]byte, n)
	}
	f.buf = f.buf[:n]
	_, err := io.ReadFull(f.r, f.buf)
	return f.buf, err
}

// watchResult is what the watchers saw.
type watchResult struct {
	latencies []time.Duration
	cpu       map[string]float64
	missing   int
	// other is an event without a sequence number, and why a watch ended early: for the error message.
	other, ended string
}

// watchDelivery opens watchers watches on the namespace's AIMServices in the media type, changes objects
// events times (one annotation each, 4 writers), and measures the time from sending each change until each
// watcher has it, and the servers' CPU meanwhile.
func (p *apiPath) watchDelivery(ctx context.Context, ns string, names []string, watchers, events int, accept string, servers []measure.Server) (*watchResult, error) {
	head, _, err := p.do(ctx, http.MethodGet, p.collection(ns)+"?limit=1", "", mediaJSON, nil, http.StatusOK)
	if err != nil {
		return nil, err
	}
	meta, err := listMeta(head)
	if err != nil {
		return nil, fmt.Errorf("%s: reading the list's resourceVersion: %w", p.name, err)
	}
	rv := meta.ResourceVersion
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()

	sent := make([]atomic.Int64, events)
	var mu sync.Mutex
	res := &watchResult{}
	connected := make(chan error, watchers)
	var wg sync.WaitGroup
	for range watchers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.collection(ns)+"?watch=1&resourceVersion="+rv, nil)
			req.Header.Set("Accept", accept)
			resp, err := p.client.Do(req)
			if err != nil {
				connected <- err
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				connected <- fmt.Errorf("%s watch: HTTP %d", p.name, resp.StatusCode)
				return
			}
			connected <- nil
			fr := &frameReader{r: bufio.NewReaderSize(resp.Body, 64<<10), protobuf: strings.Contains(resp.Header.Get("Content-Type"), "protobuf")}
			var mine []time.Duration
			// Other writers (a running controller) send events that repeat an earlier number: first sight counts.
			seen := make([]bool, events)
			for len(mine) < events {
				frame, err := fr.next()
				if err != nil {
					mu.Lock()
					res.ended = err.Error()
					mu.Unlock()
					break
				}
				seq := findSeq(frame)
				if seq >= 0 && seq < events && !seen[seq] {
					seen[seq] = true
					mine = append(mine, time.Duration(time.Now().UnixNano()-sent[seq].Load()))
				} else if seq < 0 {
					mu.Lock()
					res.other = string(frame[:min(len(frame), 300)])
					mu.Unlock()
				}
			}
			mu.Lock()
			res.latencies = append(res.latencies, mine...)
			res.missing += events - len(mine)
			mu.Unlock()
		}()
	}
	for range watchers {
		if err := <-connected; err != nil {
			cancel()
			wg.Wait()
			return nil, err
		}
	}
	// Watches are registered once the headers arrive; give the caches a moment to attach every watcher.
	time.Sleep(500 * time.Millisecond)
	before, err := readAll(servers)
	if err != nil {
		return nil, err
	}
	err = measure.Parallel(ctx, 4, events, func(ctx context.Context, i int) error {
		body := fmt.Appendf(nil, `{"metadata":{"annotations":{"bench/seq":%q}}}`, seqValue(i))
		sent[i].Store(time.Now().UnixNano())
		_, err := p.patch(ctx, ns, names[i%len(names)], "", body)
		return err
	})
	if err != nil {
		cancel()
		wg.Wait()
		return nil, err
	}
	wg.Wait()
	after, err := readAll(servers)
	if err != nil {
		return nil, err
	}
	res.cpu = cpuBetween(before, after)
	return res, nil
}
