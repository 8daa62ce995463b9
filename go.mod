module github.com/schedsim/schedsim

go 1.26.8
