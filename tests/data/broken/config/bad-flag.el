;;; broken: :disable-edit must be t or nil (line 4)
(define-muc-configuration-options
  :slot-file "slots-small.el"
  :disable-edit yes)
