package pool

// noCopy makes go vet's copylocks check report copies of the struct that
// embeds it.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}
