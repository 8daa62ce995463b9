module github.com/schedsim/schedsim

go 1.26.8

require (
	github.com/klauspost/compress v1.20.3
	github.com/spf13/pflag v1.0.10
)
