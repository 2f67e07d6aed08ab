module github.com/superstep/superstep

go 1.26

require github.com/expr-lang/expr v1.17.8
