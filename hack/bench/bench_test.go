package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	aimscheme "github.com/aim-apiserver/aim-apiserver/pkg/generated/clientset/versioned/scheme"
)

func TestSequenceNumbersAreFoundInEvents(t *testing.T) {
	for _, tc := range []struct {
		frame string
		want  int
	}{
		{`{"type":"MODIFIED","object":{"metadata":{"annotations":{"bench/seq":"` + seqValue(42) + `"}}}}`, 42},
		{"\x0a\x10" + seqValue(7) + "\x12", 7},
		{`{"type":"MODIFIED","object":{}}`, -1},
		{"bseq12", -1},
		{"bseqabcdefg", -1},
	} {
		if got := findSeq([]byte(tc.frame)); got != tc.want {
			t.Errorf("findSeq(%q) = %d, want %d", tc.frame, got, tc.want)
		}
	}
}

func TestFrameReaderSplitsWatchStreams(t *testing.T) {
	json := "{\"a\":1}\n{\"b\":2}\n"
	fr := &frameReader{r: bufio.NewReader(strings.NewReader(json))}
	for _, want := range []string{"{\"a\":1}\n", "{\"b\":2}\n"} {
		got, err := fr.next()
		if err != nil || string(got) != want {
			t.Fatalf("JSON frame %q, %v; want %q", got, err, want)
		}
	}
	var pb bytes.Buffer
	for _, f := range []string{"first", "", "second frame"} {
		_ = binary.Write(&pb, binary.BigEndian, uint32(len(f)))
		pb.WriteString(f)
	}
	fr = &frameReader{r: bufio.NewReader(&pb), protobuf: true}
	for _, want := range []string{"first", "", "second frame"} {
		got, err := fr.next()
		if err != nil || string(got) != want {
			t.Fatalf("protobuf frame %q, %v; want %q", got, err, want)
		}
	}
	if _, err := fr.next(); err == nil {
		t.Error("no error at the end of the stream")
	}
}

// TestListMetaReadsEveryEncoding: CRD lists put metadata after the items (a reader of the front gets an item's
// resourceVersion); typed lists put it first; protobuf lists are decoded.
func TestListMetaReadsEveryEncoding(t *testing.T) {
	crd := `{"apiVersion":"twin/v1alpha1","items":[{"metadata":{"resourceVersion":"5","name":"a"}}],"kind":"AIMServiceList","metadata":{"continue":"tok","resourceVersion":"9"}}`
	meta, err := listMeta([]byte(crd))
	if err != nil || meta.ResourceVersion != "9" || meta.Continue != "tok" {
		t.Errorf("CRD list: %+v %v", meta, err)
	}
	list := &aimv1.AIMServiceList{ListMeta: metav1.ListMeta{ResourceVersion: "12", Continue: "next"},
		Items: []aimv1.AIMService{{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "3"}}}}
	info, ok := runtime.SerializerInfoForMediaType(aimscheme.Codecs.SupportedMediaTypes(), mediaProtobuf)
	if !ok {
		t.Fatal("no protobuf serializer")
	}
	var buf bytes.Buffer
	if err := aimscheme.Codecs.EncoderForVersion(info.Serializer, aimv1.SchemeGroupVersion).Encode(list, &buf); err != nil {
		t.Fatal(err)
	}
	meta, err = listMeta(buf.Bytes())
	if err != nil || meta.ResourceVersion != "12" || meta.Continue != "next" {
		t.Errorf("protobuf list: %+v %v", meta, err)
	}
}

func TestPercentileAndMedian(t *testing.T) {
	var d []time.Duration
	for i := 100; i >= 1; i-- {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	if p := percentile(d, 0.5); p != 50*time.Millisecond {
		t.Errorf("p50 %v", p)
	}
	if p := percentile(d, 0.99); p != 99*time.Millisecond {
		t.Errorf("p99 %v", p)
	}
	if p := percentile(nil, 0.5); p != 0 {
		t.Errorf("p50 of nothing %v", p)
	}
	if m := median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median %v", m)
	}
	if m := median([]float64{4, 1, 2, 3}); m != 2.5 {
		t.Errorf("median %v", m)
	}
}

// TestTargetsCompareTheRightRows: a protobuf LIST is held against the CRD twin's JSON LIST; rates must be at
// least, times at most, the target ratio.
func TestTargetsCompareTheRightRows(t *testing.T) {
	r := newResults(config{concurrency: 16})
	r.add(rowListJSON, pathAggregated, 50)
	r.add(rowListJSON, pathCRD, 100)
	r.add(rowListProtobuf, pathAggregated, 25)
	r.addRun("create c=16", pathAggregated, 100, time.Second, nil, nil)
	r.addRun("create c=16", pathCRD, 100, 2*time.Second, nil, nil)
	for _, tc := range []struct{ row, ratio, verdict string }{
		{rowListJSON, "0.50x", "<= 0.60x: met"},
		{rowListProtobuf, "0.25x of CRD JSON", "<= 0.30x: met"},
		{"create c=16: objects/s", "2.00x", ">= 1.20x: met"},
		{"create c=16: p99 ms", "-", ""},
	} {
		ratio, verdict := r.ratio(tc.row)
		if ratio != tc.ratio || verdict != tc.verdict {
			t.Errorf("%s: %q %q, want %q %q", tc.row, ratio, verdict, tc.ratio, tc.verdict)
		}
	}
	r.add(rowEtcdBytes, pathAggregated, 70)
	r.add(rowEtcdBytes, pathCRD, 100)
	if _, verdict := r.ratio(rowEtcdBytes); verdict != "<= 0.60x: MISSED" {
		t.Errorf("etcd bytes: %q", verdict)
	}
	var out bytes.Buffer
	r.print(&out)
	if i, j := strings.Index(out.String(), "| create c=16: objects/s"), strings.Index(out.String(), "| LIST all, JSON"); i < 0 || j < 0 || i > j {
		t.Errorf("rows out of order:\n%s", out.String())
	}
}
